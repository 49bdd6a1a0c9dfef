"use client";

import type { SessionCapabilities, SiwcSessionInfo } from "@/lib/client/session-state";
import { VoiceButton } from "../voice/voice-button";
import { FastToggle } from "./fast-toggle";
import { ImageModeToggle } from "./image-mode-toggle";
import { ModelPicker } from "./model-picker";
import { PlanUsageIndicator } from "./plan-usage";
import { ReasoningEffortSelect } from "./reasoning-effort-select";
import type { ChatSettings } from "./use-chat-settings";
import type { ModelList } from "./use-model-list";
import { WebSearchToggle } from "./web-search-toggle";

interface ChatControlsProps {
  modelList: ModelList;
  settings: ChatSettings;
  /** What the session may do besides chat: the Picture switch for `pictures`, the voice button for `voice`. */
  capabilities: SessionCapabilities;
  /** Signed in with ChatGPT: plan usage beside the picker. */
  siwc: SiwcSessionInfo | null;
  imageMode: boolean;
  onImageModeChange: (on: boolean) => void;
  /** False with LWC_WEB_SEARCH=off: no "Search the web" switch. */
  webSearchAvailable: boolean;
  webSearch: boolean;
  onWebSearchChange: (on: boolean) => void;
  onVoice: () => void;
}

/** The row under the message box: model, plan usage, reasoning effort, Fast, Picture, Search and voice. */
export function ChatControls({ modelList, settings, capabilities, siwc, imageMode, onImageModeChange, webSearchAvailable, webSearch, onWebSearchChange, onVoice }: ChatControlsProps) {
  return (
    <>
      <ModelPicker models={modelList.models} value={settings.model} onChange={settings.setModel} loading={modelList.status === "loading"} />
      {siwc?.planUsage && <PlanUsageIndicator />}
      <ReasoningEffortSelect value={settings.reasoningEffort} efforts={settings.efforts} onChange={settings.setReasoningEffort} />
      {settings.fastAvailable && <FastToggle checked={settings.fast} onChange={settings.setFast} />}
      {capabilities.pictures && <ImageModeToggle checked={imageMode} onChange={onImageModeChange} />}
      {webSearchAvailable && <WebSearchToggle checked={webSearch} onChange={onWebSearchChange} />}
      {capabilities.voice && <VoiceButton onClick={onVoice} />}
    </>
  );
}

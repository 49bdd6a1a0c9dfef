"use client";

import { onDemand } from "@/lib/client/on-demand";
import { OnDemandDialog } from "../ui/on-demand-dialog";
import type { VoiceDialogProps } from "./voice-dialog";

// Voice and agent voice (WebRTC, the call's state, the agent's panel) load when the voice dialog first opens.
const voiceDialog = onDemand(() => import("./voice-dialog"));
const VOICE_FRAME =
  "m-0 h-dvh max-h-none w-full max-w-none bg-card text-foreground backdrop:bg-black/40 sm:m-auto sm:h-[min(44rem,90dvh)] sm:max-w-lg sm:rounded-2xl sm:border sm:border-border sm:shadow-xl";

/** The voice dialog, with a stand-in (or a retry) while its code downloads. */
export function VoiceOnDemand(props: VoiceDialogProps) {
  return (
    <OnDemandDialog part={voiceDialog} label="Voice" failedTitle="Voice did not load" frameClassName={VOICE_FRAME} onClose={props.onClose}>
      {({ VoiceDialog }) => <VoiceDialog {...props} />}
    </OnDemandDialog>
  );
}

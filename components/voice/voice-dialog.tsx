"use client";

import { useEffect, useRef, useState } from "react";
import { agentActionText } from "@/lib/client/agent-activity";
import type { RealtimeSessionOptions } from "@/lib/client/realtime";
import { agentActionAt, type VoiceAgentAction } from "@/lib/client/realtime-chat-messages";
import type { TranscriptLine } from "@/lib/client/realtime-transcript";
import { iconButton, primaryButton } from "../ui/button-styles";
import { AgentPanel } from "./agent-panel";
import { XIcon } from "../ui/icons";
import { ModalDialog } from "../ui/modal-dialog";
import { useAgentSession } from "./use-agent-session";
import { useVoiceCall } from "./use-voice-call";
import { VoiceControls } from "./voice-controls";
import { VoiceErrorAlert } from "./voice-error-alert";
import { MicIcon } from "./voice-icons";
import { VoiceLevelMeter } from "./voice-level-meter";
import { VoiceOptions } from "./voice-options";
import { VoiceStatusLine } from "./voice-status";
import { VoiceTextForm } from "./voice-text-form";
import { VoiceTranscript } from "./voice-transcript";

export interface VoiceDialogProps {
  /** The dialog closed (Close, Escape); the call is over by then. */
  onClose: () => void;
  /** A call ended with words said: the chat keeps them, and what the agent did meanwhile. */
  onTranscript: (lines: TranscriptLine[], actions: VoiceAgentAction[]) => void;
  onSignInAgain: () => void;
  /** The session may use agent voice (its capability): only then is agent mode offered. */
  agentVoice?: boolean;
}

/**
 * The voice screen, a modal dialog over the chat: start (a button press, so the browser may ask for
 * the microphone), the state, both sides' levels and transcript, mute, hang up, typing, and errors.
 */
export function VoiceDialog({ onClose, onTranscript, onSignInAgain, agentVoice = true }: VoiceDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  const [session, setSession] = useState<RealtimeSessionOptions>({});
  // The agent's finished tool calls in this call, each after the transcript line it followed.
  const actionsRef = useRef<VoiceAgentAction[]>([]);
  const call = useVoiceCall({ onFinished: (finished) => onTranscript(finished, actionsRef.current.splice(0)) });
  const agent = useAgentSession();
  const [agentMode, setAgentMode] = useState(false);
  const inCall = call.phase === "connecting" || call.phase === "connected" || call.phase === "reconnecting";
  const { stop: stopAgent } = agent;

  const recordedEventsRef = useRef(0);
  const { activity } = agent;
  const lines = call.lines;
  useEffect(() => {
    if (activity.length < recordedEventsRef.current) recordedEventsRef.current = 0; // a new call's events
    for (const event of activity.slice(recordedEventsRef.current)) {
      const review = activity.find((earlier) => earlier.type === "tool.pending_confirmation" && earlier.callId === event.callId)?.review;
      const text = agentActionText(event, review);
      if (text) actionsRef.current.push(agentActionAt(lines, text));
    }
    recordedEventsRef.current = activity.length;
  }, [activity, lines]);

  // The call ended (either side, or failed): end the agent's live session too.
  useEffect(() => {
    if (call.phase === "ended" || call.phase === "failed") stopAgent();
  }, [call.phase, stopAgent]);

  const start = () => {
    actionsRef.current = [];
    void (agentMode
      ? call.start(session, (sdp, signal) => agent.exchangeOffer(sdp, signal, session.voice ? { voice: session.voice } : {}))
      : call.start(session));
  };

  return (
    // The dialog opens with the focus on the one thing to do.
    <ModalDialog
      dialogRef={dialogRef}
      initialFocus={startRef}
      aria-labelledby="voice-title"
      data-testid="voice-dialog"
      onClose={() => {
        call.hangUp();
        onClose();
      }}
      className="m-0 h-dvh max-h-none w-full max-w-none bg-card text-foreground backdrop:bg-black/40 sm:m-auto sm:h-[min(44rem,90dvh)] sm:max-w-lg sm:rounded-2xl sm:border sm:border-border sm:shadow-xl"
    >
      {/* Scrolls as a whole only when even the kept minimums do not fit (a very short window). */}
      <div className="flex h-full flex-col gap-3 overflow-y-auto p-4 sm:p-5">
        <div className="flex items-center justify-between gap-2">
          <h2 id="voice-title" className="text-[17px] font-semibold tracking-tight">
            Voice
          </h2>
          <button type="button" data-testid="voice-close" onClick={() => dialogRef.current?.close()} aria-label="Close voice" className={iconButton}>
            <XIcon className="size-4" />
          </button>
        </div>

        <VoiceStatusLine status={call.status} reconnecting={call.reconnecting} />

        {call.phase === "connected" || call.phase === "reconnecting" ? (
          <div className="flex flex-col gap-2">
            <VoiceLevelMeter label="You" level={call.levels.microphone} testId="voice-level-user" />
            <VoiceLevelMeter label="Assistant" level={call.levels.assistant} testId="voice-level-assistant" />
          </div>
        ) : null}

        {call.error && <VoiceErrorAlert error={call.error} onRetry={start} onSignIn={onSignInAgain} />}

        {!inCall && !call.error && (
          <div className="flex flex-col gap-3">
            <p className="text-[14px] leading-6 text-muted-foreground">
              {call.phase === "ended"
                ? "The call is over. What was said is now part of the chat."
                : "Talk with the assistant out loud. Your browser asks for the microphone when you start; the audio goes to ChatGPT's voice service."}
            </p>
          </div>
        )}

        {!inCall && <VoiceOptions value={session} onChange={setSession} />}

        {!inCall && agentVoice && agent.available && (
          <label className="flex items-center gap-2 text-[14px]">
            <input type="checkbox" data-testid="voice-agent-mode" checked={agentMode} onChange={(event) => setAgentMode(event.target.checked)} />
            Agent mode: the assistant can use the app&apos;s tools (you approve anything it saves)
          </label>
        )}

        {!inCall && agent.unavailable && (
          <p data-testid="voice-agent-unavailable" className="text-[14px] leading-6 text-muted-foreground">
            {agent.unavailable}
          </p>
        )}

        {agentMode && (
          // At most 30% of the dialog (its confirmations come first), so the transcript keeps its room.
          <div className="max-h-[30%] shrink-0 overflow-y-auto">
            <AgentPanel
              activity={agent.activity}
              pending={agent.pending}
              notes={agent.notes}
              confirmError={agent.confirmError}
              onDecide={(callId, approved) => void agent.decide(callId, approved)}
            />
          </div>
        )}

        <VoiceTranscript lines={call.lines} />

        <VoiceTextForm onSend={call.sendText} disabled={call.phase !== "connected"} />

        {inCall ? (
          <VoiceControls muted={call.muted} onToggleMute={() => void call.toggleMute()} onHangUp={call.hangUp} />
        ) : (
          !call.error && (
            // autoFocus: after a call, focus moves back here from the controls that just went away.
            <button type="button" ref={startRef} data-testid="voice-start" autoFocus onClick={start} className={primaryButton}>
              <MicIcon className="size-4" />
              {call.phase === "ended" ? "Start again" : "Start talking"}
            </button>
          )
        )}
      </div>
    </ModalDialog>
  );
}

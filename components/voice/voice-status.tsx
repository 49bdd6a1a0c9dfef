import type { VoiceStatus } from "./use-voice-call";
import { WaitingIndicator } from "../ui/waiting-indicator";

const WORDS: Record<VoiceStatus, string> = {
  idle: "Ready to start",
  connecting: "Connecting…",
  listening: "Listening",
  speaking: "Speaking",
  muted: "Muted",
  ended: "Call ended",
  failed: "Call failed",
};

const DETAILS: Partial<Record<VoiceStatus, string>> = {
  listening: "Talk whenever you like.",
  speaking: "The assistant is talking.",
  muted: "Your microphone is off. Unmute to talk.",
};

/** The call's state in words, announced politely to screen readers as it changes. */
export function VoiceStatusLine({ status, reconnecting }: { status: VoiceStatus; reconnecting: boolean }) {
  const words = reconnecting ? "Reconnecting…" : WORDS[status];
  return (
    <div className="flex items-center gap-2.5">
      <span
        aria-hidden="true"
        className={`size-2.5 shrink-0 rounded-full ${
          status === "failed" ? "bg-destructive" : status === "listening" || status === "speaking" ? "bg-accent" : "bg-muted-foreground"
        }`}
      />
      <p role="status" aria-live="polite" data-testid="voice-status" data-status={status} className="text-[15px] font-semibold text-foreground">
        {words}
        {DETAILS[status] && <span className="ml-2 text-[13px] font-normal text-muted-foreground">{DETAILS[status]}</span>}
      </p>
      {status === "connecting" && <WaitingIndicator />}
    </div>
  );
}

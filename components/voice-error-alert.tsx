import type { RealtimeErrorInfo } from "@/lib/client/realtime-error";
import { secondaryButton } from "./button-styles";
import { AlertIcon } from "./icons";

interface VoiceErrorAlertProps {
  error: RealtimeErrorInfo;
  onRetry: () => void;
  onSignIn: () => void;
}

/** Why the call failed, in words, with the way forward (retry, or sign in again). */
export function VoiceErrorAlert({ error, onRetry, onSignIn }: VoiceErrorAlertProps) {
  return (
    <div
      role="alert"
      data-testid="voice-error"
      data-error-code={error.code}
      className="flex gap-3 rounded-xl border border-destructive/25 bg-destructive-soft px-4 py-3 text-sm"
    >
      <AlertIcon className="mt-0.5 size-[18px] shrink-0 text-destructive" />
      <div className="min-w-0 flex-1">
        <p className="font-semibold text-foreground">{error.title}</p>
        <p className="mt-0.5 leading-6 text-foreground/85">{error.message}</p>
        <div className="mt-2.5 flex flex-wrap gap-2">
          {error.code === "not_authenticated" ? (
            <button type="button" onClick={onSignIn} className={`${secondaryButton} h-8`}>
              Sign in again
            </button>
          ) : (
            <button type="button" data-testid="voice-retry" autoFocus onClick={onRetry} className={`${secondaryButton} h-8`}>
              Try again
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

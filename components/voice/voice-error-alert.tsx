import type { RealtimeErrorInfo } from "@/lib/client/realtime-error";
import { secondaryButton } from "../ui/button-styles";
import { ErrorAlert } from "../ui/error-alert";

interface VoiceErrorAlertProps {
  error: RealtimeErrorInfo;
  onRetry: () => void;
  onSignIn: () => void;
}

/** Why the call failed, in words, with the way forward (retry, or sign in again). */
export function VoiceErrorAlert({ error, onRetry, onSignIn }: VoiceErrorAlertProps) {
  return (
    <ErrorAlert testId="voice-error" code={error.code} title={error.title} message={error.message}>
      {error.code === "not_authenticated" ? (
        <button type="button" onClick={onSignIn} className={`${secondaryButton} h-8`}>
          Sign in again
        </button>
      ) : (
        <button type="button" data-testid="voice-retry" autoFocus onClick={onRetry} className={`${secondaryButton} h-8`}>
          Try again
        </button>
      )}
    </ErrorAlert>
  );
}

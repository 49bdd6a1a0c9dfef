import { secondaryButton } from "./button-styles";
import { ErrorAlert } from "./error-alert";

interface LoadFailedAlertProps {
  title: string;
  onRetry: () => void;
  /** Focus Try again: where the failure replaced what the person just asked for (a dialog, the chat). */
  autoFocus?: boolean;
}

/** A part of the page whose code did not download (lib/client/on-demand.ts), and Try again. */
export function LoadFailedAlert({ title, onRetry, autoFocus = false }: LoadFailedAlertProps) {
  return (
    <ErrorAlert
      testId="load-failed"
      code="load_failed"
      title={title}
      message="Its code could not be downloaded: the connection may have dropped. Check it, then try again."
    >
      <button type="button" autoFocus={autoFocus} onClick={onRetry} className={`${secondaryButton} h-8`}>
        Try again
      </button>
    </ErrorAlert>
  );
}

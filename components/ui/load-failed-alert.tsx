import { secondaryButton } from "./button-styles";
import { ErrorAlert } from "./error-alert";

/** A part of the page whose code did not download (lib/client/on-demand.ts), and Try again. */
export function LoadFailedAlert({ title, onRetry }: { title: string; onRetry: () => void }) {
  return (
    <ErrorAlert
      testId="load-failed"
      code="load_failed"
      title={title}
      message="Its code could not be downloaded: the connection may have dropped. Check it, then try again."
    >
      <button type="button" autoFocus onClick={onRetry} className={`${secondaryButton} h-8`}>
        Try again
      </button>
    </ErrorAlert>
  );
}

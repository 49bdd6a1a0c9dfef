import type { ChatErrorInfo } from "@/lib/client/chat-error";
import { canRetry } from "@/lib/client/chat-turns";
import { ghostButton, secondaryButton } from "../ui/button-styles";
import { ChatErrorAlert } from "./chat-error-alert";
import { PencilIcon, PlusIcon, RefreshIcon, TrashIcon } from "../ui/icons";

interface FailedTurnProps {
  failure: ChatErrorInfo;
  /** The failed turn is the conversation's latest: show the full alert, otherwise a compact row. */
  latest: boolean;
  /** False while another answer streams. */
  enabled: boolean;
  onRetry: () => void;
  onEdit: () => void;
  onRemove: () => void;
  onSignIn: () => void;
  /** For a conversation too long to send: a new chat that carries the last exchange. */
  onNewChatWithLastTurn: () => void;
}

/** What a failed turn offers: retry (only where it can succeed), edit, remove. */
export function FailedTurn({ failure, latest, enabled, onRetry, onEdit, onRemove, onSignIn, onNewChatWithLastTurn }: FailedTurnProps) {
  const actions = (
    <>
      {canRetry(failure) && (
        <button type="button" data-testid="retry-turn-button" onClick={onRetry} disabled={!enabled} className={`${secondaryButton} h-8`}>
          <RefreshIcon className="size-3.5" />
          Try again
        </button>
      )}
      {failure.code === "responses_request_too_large" && (
        <button type="button" data-testid="new-chat-with-last-turn" onClick={onNewChatWithLastTurn} disabled={!enabled} className={`${secondaryButton} h-8`}>
          <PlusIcon className="size-3.5" />
          New chat with the last exchange
        </button>
      )}
      <button type="button" data-testid="edit-turn-button" onClick={onEdit} disabled={!enabled} className={`${ghostButton} h-8 text-foreground`}>
        <PencilIcon className="size-3.5" />
        Edit
      </button>
      <button type="button" data-testid="remove-turn-button" onClick={onRemove} disabled={!enabled} className={`${ghostButton} h-8 text-foreground`}>
        <TrashIcon className="size-3.5" />
        Remove
      </button>
    </>
  );
  if (latest) {
    return (
      <ChatErrorAlert error={failure} onSignIn={onSignIn}>
        {actions}
      </ChatErrorAlert>
    );
  }
  return (
    <div data-testid="failed-turn" data-error-code={failure.code} className="-mt-4 flex flex-wrap items-center justify-end gap-1 text-xs">
      {actions}
    </div>
  );
}

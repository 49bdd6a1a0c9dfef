"use client";

import { ghostButton, primaryButton, secondaryButton } from "../ui/button-styles";
import { ModalDialog } from "../ui/modal-dialog";

interface SignOutDialogProps {
  open: boolean;
  onCancel: () => void;
  onSignOut: () => void;
  /** Sign out and delete this account's conversations, drafts and the app's preferences from this browser. */
  onSignOutAndForget: () => void;
  /** The server keeps the chats too (forgetting this device loses nothing there). */
  keptOnServer?: boolean;
  /** Export all this browser's chats to a file (offered before forgetting, when the server does not keep them). */
  onExport?: () => void;
  /** Forgetting was asked, but what this browser had not sent yet could not reach the server: nothing was forgotten. */
  forgetFailed?: boolean;
}

/** Asks whether to keep this device's conversations when signing out. */
export function SignOutDialog({ open, onCancel, onSignOut, onSignOutAndForget, keptOnServer = false, onExport, forgetFailed = false }: SignOutDialogProps) {
  return (
    <ModalDialog
      open={open}
      data-testid="sign-out-dialog"
      aria-labelledby="sign-out-title"
      onCancel={onCancel}
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl border border-border bg-card p-5 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <h2 id="sign-out-title" className="text-base font-semibold">
        Sign out
      </h2>
      <p className="mt-1.5 text-sm leading-6 text-muted-foreground">
        {keptOnServer
          ? "Your conversations are kept on the server, and this browser keeps a copy. Keep the copy for the next time you sign in here, or forget it (with your drafts and settings) on this device: the server keeps them."
          : "Your conversations are kept in this browser only. Keep them for the next time you sign in here, or forget them (with your drafts and settings) on this device: export them first to keep a copy."}
      </p>
      {forgetFailed && (
        <p role="alert" data-testid="sign-out-forget-failed" className="mt-2 text-sm leading-6 text-destructive">
          Your latest changes could not be saved to the server, so nothing was forgotten. Try again, or sign out and keep them.
        </p>
      )}
      <div className="mt-4 flex flex-col gap-2">
        <button type="button" data-testid="sign-out-confirm" onClick={onSignOut} autoFocus className={`${primaryButton} h-10 text-sm`}>
          Sign out, keep conversations
        </button>
        {!keptOnServer && onExport && (
          <button type="button" data-testid="sign-out-export" onClick={onExport} className={`${secondaryButton}`}>
            Export all conversations first
          </button>
        )}
        <button type="button" data-testid="sign-out-forget" onClick={onSignOutAndForget} className={`${secondaryButton}`}>
          Sign out and forget this device&apos;s conversations
        </button>
        <button type="button" onClick={onCancel} className={`${ghostButton}`}>
          Cancel
        </button>
      </div>
    </ModalDialog>
  );
}

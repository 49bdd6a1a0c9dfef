"use client";

import { useState } from "react";
import { forgetToldWhereChatsAre } from "@/lib/client/history-choice";
import { SignOutDialog } from "./sign-out-dialog";

interface WorkspaceSignOutProps {
  open: boolean;
  onClose: () => void;
  accountId: string;
  /** Where this browser's chats are kept, and a sync round now (what waits to be sent goes up). */
  history: { place: string; syncNow(): Promise<void> };
  conversationCount: number;
  forgetThisDevice(): Promise<void>;
  exportAll(): Promise<unknown>;
  onSignOut: () => void;
}

/** The chat's sign-out: keep this device's chats, or forget them once the server has everything. */
export function WorkspaceSignOut({ open, onClose, accountId, history, conversationCount, forgetThisDevice, exportAll, onSignOut }: WorkspaceSignOutProps) {
  const [forgetFailed, setForgetFailed] = useState(false);
  const close = () => {
    onClose();
    setForgetFailed(false);
  };
  const signOutAndForget = async () => {
    // What this browser has not sent yet goes to the server first: forgetting drops the queue.
    if (history.place === "server") {
      try {
        await history.syncNow();
      } catch {
        setForgetFailed(true);
        return;
      }
    }
    close();
    await forgetThisDevice();
    onSignOut();
  };
  return (
    <SignOutDialog
      open={open}
      onCancel={close}
      forgetFailed={forgetFailed}
      onSignOut={() => {
        close();
        forgetToldWhereChatsAre(accountId);
        onSignOut();
      }}
      onSignOutAndForget={() => void signOutAndForget()}
      keptOnServer={history.place === "server"}
      onExport={conversationCount > 0 ? () => void exportAll() : undefined}
    />
  );
}

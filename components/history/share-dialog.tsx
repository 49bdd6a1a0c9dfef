"use client";

import { useEffect, useRef, useState } from "react";
import type { ShareLink } from "@/lib/client/history-api";
import { isProviderProxyError } from "@/lib/client/provider-proxy-error";
import { ghostButton, primaryButton, secondaryButton } from "../ui/button-styles";
import { CopyButton } from "../ui/copy-button";
import { ModalDialog } from "../ui/modal-dialog";
import { shareUrl } from "./share-url";
import type { HistorySync } from "./use-history-sync";

interface ShareDialogProps {
  history: HistorySync;
  conversationId: string;
  title: string;
  /** The last message of the branch this browser shows: the link holds the branch up to it. */
  leafId?: string;
  onClose: () => void;
}

function problem(error: unknown): string {
  if (isProviderProxyError(error) && error.code === "history_not_found") return "This chat isn't on the server yet. Try again once this browser is online.";
  if (isProviderProxyError(error) && error.code === "share_too_large") return "This chat is too large to share (its images count).";
  return "The link could not be made or changed. Try again when the server can be reached.";
}

/**
 * Share a conversation (loaded when first wanted): a read-only link to a snapshot of the branch on
 * screen, taken now (later messages do not join it), to copy; revoking it ends it at once.
 */
export default function ShareDialog({ history, conversationId, title, leafId, onClose }: ShareDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [links, setLinks] = useState<ShareLink[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { api } = history;

  useEffect(() => {
    let cancelled = false;
    api.listShares().then(
      (all) => {
        if (!cancelled) setLinks(all.filter((share) => share.conversationId === conversationId));
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [api, conversationId]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      // The server must hold what is on screen first.
      await history.syncNow().catch(() => undefined);
      const link = await api.createShare(conversationId, leafId);
      setLinks((current) => [link, ...current]);
    } catch (caught) {
      setError(problem(caught));
    } finally {
      setBusy(false);
    }
  };
  const revoke = (id: string) => {
    api.revokeShare(id).then(
      () => setLinks((current) => current.filter((link) => link.id !== id)),
      (caught: unknown) => setError(problem(caught)),
    );
  };

  return (
    <ModalDialog
      dialogRef={dialogRef}
      restoreFocus
      data-testid="share-dialog"
      aria-labelledby="share-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialogRef.current) onClose();
      }}
      className="m-auto w-[min(30rem,calc(100vw-1.5rem))] rounded-2xl border border-border bg-card p-5 text-foreground shadow-xl backdrop:bg-black/40"
    >
      <h2 id="share-title" className="text-base font-semibold">
        Share “<span dir="auto">{title}</span>”
      </h2>
      <p className="mt-1.5 text-[13px] leading-5 text-muted-foreground">
        Anyone with the link can read this chat as it is now, without signing in; messages you send later are not added. No
        account, usage or settings are shown. Revoke the link to end it.
      </p>
      <div className="mt-3 flex flex-col gap-2">
        {links.map((link) => (
          <div key={link.id} data-testid="share-link-row" className="flex items-center gap-2">
            <input
              data-testid="share-link"
              readOnly
              value={shareUrl(link.id)}
              aria-label="Share link"
              onFocus={(event) => event.target.select()}
              className="h-9 min-w-0 flex-1 rounded-lg border border-input bg-muted px-2 text-[13px] text-foreground"
            />
            <CopyButton text={shareUrl(link.id)} label="Copy link" testId="share-copy" className={`${secondaryButton} h-9 px-3`} />
            <button type="button" data-testid="share-revoke" onClick={() => revoke(link.id)} className={`${ghostButton} h-9 px-2`}>
              Revoke
            </button>
          </div>
        ))}
        {error && (
          <p data-testid="share-error" role="alert" className="text-[13px] text-destructive">
            {error}
          </p>
        )}
        <div className="mt-1 flex justify-end gap-2">
          <button type="button" onClick={onClose} className={`${ghostButton} h-10`}>
            Close
          </button>
          <button type="button" data-testid="share-create" onClick={() => void create()} disabled={busy} className={`${primaryButton} h-10 text-sm`}>
            {links.length > 0 ? "Make another link" : "Make a link"}
          </button>
        </div>
      </div>
    </ModalDialog>
  );
}

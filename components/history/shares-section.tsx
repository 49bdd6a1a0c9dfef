"use client";

import { useEffect, useState } from "react";
import type { HistoryApi, ShareLink } from "@/lib/client/history-api";
import { ghostButton } from "../ui/button-styles";
import { CopyButton } from "../ui/copy-button";
import { shareUrl } from "./share-url";

interface SharesSectionProps {
  api: HistoryApi;
  /** Conversation titles by id, to name each link. */
  titleOf: (conversationId: string) => string;
}

/** The person's read-only links, newest first, each to copy or revoke. */
export function SharesSection({ api, titleOf }: SharesSectionProps) {
  const [shares, setShares] = useState<ShareLink[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let cancelled = false;
    api.listShares().then(
      (links) => {
        if (!cancelled) setShares(links);
      },
      () => {
        if (!cancelled) setFailed(true);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api]);

  const revoke = (id: string) => {
    api.revokeShare(id).then(
      () => setShares((current) => current?.filter((share) => share.id !== id) ?? null),
      () => setFailed(true),
    );
  };

  return (
    <section className="flex flex-col gap-2" aria-labelledby="shares-heading">
      <h3 id="shares-heading" className="text-sm font-semibold">
        Shared links
      </h3>
      {failed ? (
        <p className="text-[13px] text-destructive">The links could not be read or changed. Try again when the server can be reached.</p>
      ) : shares === null ? (
        <p className="text-[13px] text-muted-foreground">Reading your links…</p>
      ) : shares.length === 0 ? (
        <p data-testid="shares-empty" className="text-[13px] text-muted-foreground">
          No links. Share a chat from its … menu in the list.
        </p>
      ) : (
        <ul className="flex flex-col gap-1">
          {shares.map((share) => (
            <li key={share.id} data-testid="share-row" data-share-id={share.id} className="flex items-center gap-2 text-sm">
              <span dir="auto" className="min-w-0 flex-1 truncate">
                {titleOf(share.conversationId)}
              </span>
              <CopyButton text={shareUrl(share.id)} label="Copy link" showLabel={false} className={`${ghostButton} size-8 px-0`} />
              <button type="button" data-testid="share-row-revoke" onClick={() => revoke(share.id)} className={`${ghostButton} h-8 px-2 text-[13px]`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

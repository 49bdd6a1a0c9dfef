"use client";

import { onDemand } from "@/lib/client/on-demand";
import { OnDemandDialog } from "../ui/on-demand-dialog";
import type { ConversationSearchDialogProps } from "./conversation-search-dialog";

// The search (with its index library) loads when first wanted, not with the chat.
const searchDialog = onDemand(() => import("./conversation-search-dialog"));
/** The search dialog's frame, for its stand-in while it downloads. */
const SEARCH_FRAME =
  "mx-auto mt-[8vh] mb-auto w-[min(38rem,calc(100vw-1.5rem))] rounded-2xl border border-border bg-card p-0 text-foreground shadow-xl backdrop:bg-black/40";

/** Starts the search's download (a pointer over its button): opening it says so if it failed. */
export function preloadSearch(): void {
  void searchDialog.load().catch(() => undefined);
}

/** The conversation search, with a stand-in (or a retry) while its code downloads. */
export function SearchOnDemand(props: ConversationSearchDialogProps) {
  return (
    <OnDemandDialog part={searchDialog} label="Search conversations" failedTitle="The search did not load" frameClassName={SEARCH_FRAME} onClose={props.onClose}>
      {({ default: ConversationSearchDialog }) => <ConversationSearchDialog {...props} />}
    </OnDemandDialog>
  );
}

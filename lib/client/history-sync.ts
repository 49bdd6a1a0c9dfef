import type { HistoryApi } from "./history-api";
import type { HistoryLocalStore } from "./history-store";
import { itemCount, packPushes, pushBody, type PushItem } from "./history-wire";
import type { OutboxRow } from "./history-outbox";
import { isProviderProxyError } from "./provider-proxy-error";

/**
 * One round of syncing this browser with the server: send what is queued (in pushes the server
 * takes), then read every page since this browser's cursor and merge it in. The first round of an
 * account queues what this browser kept before history was on. Refusals the next round cannot fix
 * (the server's "delete everything", a cursor it never gave) are handled here; the rest (offline,
 * 429, 503, signed out) are thrown for the caller to wait out.
 */

export interface SyncRound {
  /** Conversations that changed in this browser's copy. */
  changed: string[];
  /** The person deleted everything on the server: this browser's copy was dropped. */
  cleared: boolean;
  /** Conversations the first upload queued (0 when there was none). */
  uploaded: number;
  /** Messages the server will not take (too large, or refused): they stay in this browser only. */
  notKept: number;
  /** The account's space on the server is full: the queue waits. */
  quotaFull: boolean;
}

interface SyncDeps {
  api: HistoryApi;
  local: HistoryLocalStore;
  accountId: string;
  signal?: AbortSignal;
}

/** Pages read in one round at most: a first sync of a large history ends well before. */
const MAX_PAGES = 10_000;

export async function syncRound({ api, local, accountId, signal }: SyncDeps): Promise<SyncRound> {
  const round: SyncRound = { changed: [], cleared: false, uploaded: 0, notKept: 0, quotaFull: false };
  const state = await local.state(accountId);
  if (!state.uploaded) round.uploaded = await local.queueAll(accountId);
  await pushQueue({ api, local, accountId, signal }, round);

  let cursor = state.cursor;
  const changed = new Set<string>();
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await api.pull(cursor, signal);
    if (page.restart === "cleared") {
      await local.clear(accountId);
      round.cleared = true;
      changed.clear();
      cursor = 0;
      continue;
    }
    if (page.restart === "unknown_cursor") {
      // Another database, or the history was lost: this browser's copy goes up again.
      round.uploaded = await local.queueAll(accountId);
      await pushQueue({ api, local, accountId, signal }, round);
      cursor = 0;
      continue;
    }
    for (const id of await local.applyPage(accountId, page)) changed.add(id);
    cursor = page.cursor;
    if (!page.more) break;
  }
  round.changed = [...changed];
  return round;
}

/** The index of the item a 400's message names (`messages.3.parts.1.url: …`), in the order pushBody lays them out. */
function refusedItem(message: string, items: readonly PushItem[]): number | undefined {
  const match = /^(conversations|messages|deletes\.conversations|deletes\.messages)\.(\d+)/.exec(message);
  if (!match) return undefined;
  const kind = { conversations: "conversation", messages: "message", "deletes.conversations": "delete-conversation", "deletes.messages": "delete-message" }[match[1]!];
  // A conversation's item is one write of the list per field group it sends.
  const ofKind = items.flatMap((item, index) => (item.kind === kind ? Array.from({ length: itemCount(item) }, () => index) : []));
  return ofKind[Number(match[2])];
}

/** Sends the queue until it is empty (or the server's space is full); each entry leaves it once the server answered for it. */
async function pushQueue({ api, local, accountId, signal }: SyncDeps, round: SyncRound): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pending = await local.pending(accountId);
    const nothingToSend = pending.filter((entry) => !entry.item).map((entry) => entry.row);
    if (nothingToSend.length > 0) await local.ack(accountId, nothingToSend);
    const sendable = pending.filter((entry): entry is { row: OutboxRow; item: PushItem } => entry.item !== undefined);
    if (sendable.length === 0) return;
    const { batches, tooLarge } = packPushes(sendable, (entry) => entry.item);
    if (tooLarge.length > 0) {
      round.notKept += tooLarge.length;
      await local.ack(accountId, tooLarge.map((entry) => entry.row));
    }
    let refusedOne = false;
    for (const batch of batches) {
      const items = batch.map((entry) => entry.item);
      try {
        await api.push(pushBody(items), signal);
        await local.ack(accountId, batch.map((entry) => entry.row));
      } catch (error) {
        if (!isProviderProxyError(error)) throw error;
        if (error.code === "history_quota_exceeded") {
          round.quotaFull = true;
          return;
        }
        const index = error.code === "invalid_history_request" ? refusedItem(error.message, items) : error.code === "history_request_too_large" && batch.length === 1 ? 0 : undefined;
        if (index === undefined) throw error;
        // One item the server will not take: it stays in this browser; the rest go on the next try.
        round.notKept += 1;
        await local.ack(accountId, [batch[index]!.row]);
        refusedOne = true;
        break;
      }
    }
    if (!refusedOne) return;
  }
}

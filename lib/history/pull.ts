import "server-only";
/**
 * Reading what changed since a cursor (GET /history/changes): conversations, messages and the
 * person's instructions whose change number is above it, oldest first, one bounded page at a
 * time. First the numbers and sizes (index only), to cut the page by count and by bytes; then only
 * the rows of that page, opened.
 */
import { and, asc, eq, gt, lte } from "drizzle-orm";
import type { HistoryDb } from "./database";
import { PULL_PAGE_BYTES } from "./limits";
import { sealContext, type ContentSealer } from "./sealing";
import { historyAccounts, historyConversations, historyMessages } from "./schema";
import type { ChangesPage, ConversationChange, MessageChange, MessageRole } from "./types";

interface Head {
  seq: number;
  size: number;
}

const empty = (cursor: number, restart?: ChangesPage["restart"]): ChangesPage => ({
  cursor,
  more: false,
  ...(restart ? { restart } : {}),
  conversations: [],
  messages: [],
});

export interface PullOutcome {
  page: ChangesPage;
  /** Rows no configured secret opens (sealed under a secret since removed): left out of the page. */
  unreadable: number;
}

export async function pullChanges(
  db: HistoryDb,
  sealer: ContentSealer,
  accountRowId: number | undefined,
  since: number,
  limit: number,
): Promise<PullOutcome> {
  if (accountRowId === undefined) return { page: empty(0, since > 0 ? "unknown_cursor" : undefined), unreadable: 0 };
  const [account] = await db
    .select({
      seq: historyAccounts.seq,
      clearedSeq: historyAccounts.clearedSeq,
      instructions: historyAccounts.instructions,
      instructionsRev: historyAccounts.instructionsRev,
      instructionsSeq: historyAccounts.instructionsSeq,
    })
    .from(historyAccounts)
    .where(eq(historyAccounts.id, accountRowId));
  if (!account) return { page: empty(0, since > 0 ? "unknown_cursor" : undefined), unreadable: 0 };
  if (since > 0 && since < account.clearedSeq) return { page: empty(0, "cleared"), unreadable: 0 };
  if (since > account.seq) return { page: empty(0, "unknown_cursor"), unreadable: 0 };

  const heads = async (table: typeof historyConversations | typeof historyMessages): Promise<Head[]> =>
    db
      .select({ seq: table.seq, size: table.size })
      .from(table)
      .where(and(eq(table.accountId, accountRowId), gt(table.seq, since)))
      .orderBy(asc(table.seq))
      .limit(limit);
  const conversationHeads = await heads(historyConversations);
  const messageHeads = await heads(historyMessages);
  const merged = [...conversationHeads, ...messageHeads];
  const instructionsChanged = account.instructionsSeq > since;
  if (instructionsChanged) merged.push({ seq: account.instructionsSeq, size: account.instructions?.length ?? 0 });
  merged.sort((a, b) => a.seq - b.seq);

  let taken = 0;
  let bytes = 0;
  for (const head of merged) {
    if (taken >= limit || (taken > 0 && bytes + head.size > PULL_PAGE_BYTES)) break;
    taken += 1;
    bytes += head.size;
  }
  if (taken === 0) return { page: empty(since), unreadable: 0 };
  const upTo = merged[taken - 1]!.seq;
  const more = taken < merged.length || conversationHeads.length === limit || messageHeads.length === limit;

  let unreadable = 0;
  const inPage = <T extends typeof historyConversations | typeof historyMessages>(table: T) =>
    and(eq(table.accountId, accountRowId), gt(table.seq, since), lte(table.seq, upTo));

  const conversationRows = await db.select().from(historyConversations).where(inPage(historyConversations)).orderBy(asc(historyConversations.seq));
  const conversations: ConversationChange[] = [];
  for (const row of conversationRows) {
    if (row.deleted || row.sealedTitle === null) {
      conversations.push({ id: row.id, seq: row.seq, deleted: true });
      continue;
    }
    const opened = sealer.open(row.sealedTitle, sealContext("title", accountRowId, row.id)) as { title?: unknown } | undefined;
    if (typeof opened?.title !== "string") {
      unreadable += 1;
      continue;
    }
    conversations.push({
      id: row.id,
      seq: row.seq,
      deleted: false,
      title: opened.title,
      titleEdited: row.titleEdited,
      pinned: row.pinned,
      archived: row.archived,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      revs: { title: row.titleRev, pinned: row.pinnedRev, archived: row.archivedRev },
    });
  }

  const messageRows = await db.select().from(historyMessages).where(inPage(historyMessages)).orderBy(asc(historyMessages.seq));
  const messages: MessageChange[] = [];
  for (const row of messageRows) {
    if (row.deleted || row.sealedBody === null) {
      messages.push({ conversationId: row.conversationId, id: row.id, seq: row.seq, deleted: true });
      continue;
    }
    const body = sealer.open(row.sealedBody, sealContext("message", accountRowId, row.conversationId, row.id)) as
      | { parts?: unknown; metadata?: Record<string, unknown> }
      | undefined;
    if (!body || !Array.isArray(body.parts)) {
      unreadable += 1;
      continue;
    }
    messages.push({
      conversationId: row.conversationId,
      id: row.id,
      seq: row.seq,
      deleted: false,
      parentId: row.parentId,
      role: row.role as MessageRole,
      parts: body.parts,
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      createdAt: row.createdAt,
      rev: row.rev,
    });
  }

  const page: ChangesPage = { cursor: upTo, more, conversations, messages };
  if (instructionsChanged && account.instructionsSeq <= upTo) {
    const text = account.instructions === null ? "" : sealer.open(account.instructions, sealContext("instructions", accountRowId));
    if (typeof text === "string") page.instructions = { text, rev: account.instructionsRev };
    else unreadable += 1;
  }
  return { page, unreadable };
}

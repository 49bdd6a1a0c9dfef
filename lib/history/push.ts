import "server-only";
/**
 * Writing a batch of changes (POST /history/changes) in one transaction that holds the account's
 * row, so the account's change numbers (`seq`) are handed out in commit order: a reader that sees
 * a number has seen every lower one. Nothing is ever replaced by another device's write:
 *
 * - a message id is written by the browser that made it; a rewrite (a streaming answer that grew)
 *   needs a higher `rev`, an equal or lower one changes nothing (an offline queue may resend);
 * - conversation fields merge field by field, the higher `rev` winning each;
 * - a delete leaves a tombstone that no later write brings back; a conversation's delete removes
 *   its messages and share links.
 *
 * A batch that would take the account over its quota is refused whole (nothing written).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { HistoryDb } from "./database";
import { sealContext, type ContentSealer } from "./sealing";
import { historyAccounts, historyConversations, historyMessages, historyShares } from "./schema";
import type { ConversationWrite, MessageWrite, PushBatch, PushResult, WriteStatus } from "./types";

/** The title of a conversation known only from its messages, until a write names it. */
const PLACEHOLDER_TITLE = "New chat";

export class HistoryQuotaError extends Error {
  constructor(readonly maxBytes: number) {
    super("the account's history would pass its quota");
    this.name = "HistoryQuotaError";
  }
}

type Tx = Parameters<Parameters<HistoryDb["transaction"]>[0]>[0];

interface KnownConversation {
  deleted: boolean;
  titleRev: number;
  pinnedRev: number;
  archivedRev: number;
  updatedAt: number;
  size: number;
}

interface KnownMessage {
  rev: number;
  deleted: boolean;
  size: number;
}

const messageKey = (conversationId: string, id: string) => `${conversationId}\u0000${id}`;

interface PushOptions {
  now: number;
  maxBytesPerAccount: number;
}

export async function pushChanges(
  db: HistoryDb,
  sealer: ContentSealer,
  accountRowId: number,
  batch: PushBatch,
  options: PushOptions,
): Promise<PushResult> {
  // Sealed before the transaction, which then only reads and writes.
  const titles = new Map<ConversationWrite, Uint8Array>();
  for (const write of batch.conversations) {
    if (write.title !== undefined) titles.set(write, sealer.seal({ title: write.title }, sealContext("title", accountRowId, write.id)));
  }
  const bodies = new Map<MessageWrite, Uint8Array>();
  for (const write of batch.messages) {
    const body = write.metadata === undefined ? { parts: write.parts } : { parts: write.parts, metadata: write.metadata };
    bodies.set(write, sealer.seal(body, sealContext("message", accountRowId, write.conversationId, write.id)));
  }
  const placeholderTitle = (id: string) => sealer.seal({ title: PLACEHOLDER_TITLE }, sealContext("title", accountRowId, id));

  return db.transaction(async (tx) => {
    const [account] = await tx
      .select({ seq: historyAccounts.seq, bytes: historyAccounts.bytes })
      .from(historyAccounts)
      .where(eq(historyAccounts.id, accountRowId))
      .for("update");
    if (!account) throw new Error("the history account row is missing");
    let seq = account.seq;
    const next = () => ++seq;
    let bytes = 0;

    const conversationIds = [
      ...new Set([
        ...batch.conversations.map((write) => write.id),
        ...batch.deletedConversations,
        ...batch.messages.map((write) => write.conversationId),
        ...batch.deletedMessages.map((ref) => ref.conversationId),
      ]),
    ];
    const conversations = await loadConversations(tx, accountRowId, conversationIds);
    const messages = await loadMessages(tx, accountRowId, [...batch.messages, ...batch.deletedMessages]);

    for (const id of batch.deletedConversations) bytes += await deleteConversation(tx, accountRowId, id, conversations, next, options.now);

    const conversationResults: PushResult["conversations"] = [];
    for (const write of batch.conversations) {
      const title = titles.get(write);
      const status = await writeConversation(tx, accountRowId, write, title, () => title ?? placeholderTitle(write.id), conversations, next, options.now);
      conversationResults.push({ id: write.id, status: status.status });
      bytes += status.bytes;
    }

    for (const ref of batch.deletedMessages) {
      if (conversations.get(ref.conversationId)?.deleted) continue;
      const known = messages.get(messageKey(ref.conversationId, ref.id));
      if (known?.deleted) continue;
      const tombstone = { deleted: true, sealedBody: null, size: 0, seq: next() };
      if (known) {
        await tx.update(historyMessages).set(tombstone).where(messageWhere(accountRowId, ref.conversationId, ref.id));
        bytes -= known.size;
      } else {
        await tx.insert(historyMessages).values({ accountId: accountRowId, conversationId: ref.conversationId, id: ref.id, role: "", rev: 0, createdAt: options.now, ...tombstone });
      }
      messages.set(messageKey(ref.conversationId, ref.id), { rev: known?.rev ?? 0, deleted: true, size: 0 });
    }

    const messageResults: PushResult["messages"] = [];
    const newestMessage = new Map<string, number>();
    const inserts: (typeof historyMessages.$inferInsert)[] = [];
    for (const write of batch.messages) {
      const result = (status: WriteStatus) => messageResults.push({ conversationId: write.conversationId, id: write.id, status });
      let conversation = conversations.get(write.conversationId);
      if (conversation?.deleted) {
        result("deleted");
        continue;
      }
      if (!conversation) {
        const title = placeholderTitle(write.conversationId);
        await tx.insert(historyConversations).values({
          accountId: accountRowId,
          id: write.conversationId,
          seq: next(),
          sealedTitle: title,
          createdAt: write.createdAt,
          updatedAt: write.createdAt,
          size: title.length,
        });
        bytes += title.length;
        conversation = { deleted: false, titleRev: 0, pinnedRev: 0, archivedRev: 0, updatedAt: write.createdAt, size: title.length };
        conversations.set(write.conversationId, conversation);
      }
      const key = messageKey(write.conversationId, write.id);
      const known = messages.get(key);
      const body = bodies.get(write)!;
      if (known?.deleted) {
        result("deleted");
        continue;
      }
      if (known && known.rev >= write.rev) {
        result("unchanged");
        continue;
      }
      if (known) {
        await tx
          .update(historyMessages)
          .set({ sealedBody: body, size: body.length, rev: write.rev, seq: next() })
          .where(messageWhere(accountRowId, write.conversationId, write.id));
        bytes += body.length - known.size;
      } else {
        inserts.push({
          accountId: accountRowId,
          conversationId: write.conversationId,
          id: write.id,
          parentId: write.parentId,
          role: write.role,
          seq: next(),
          rev: write.rev,
          sealedBody: body,
          size: body.length,
          createdAt: write.createdAt,
        });
        bytes += body.length;
      }
      messages.set(key, { rev: write.rev, deleted: false, size: body.length });
      newestMessage.set(write.conversationId, Math.max(newestMessage.get(write.conversationId) ?? 0, write.createdAt));
      result("applied");
    }
    if (inserts.length > 0) await tx.insert(historyMessages).values(inserts);

    // A new message moves its conversation up every device's list.
    for (const [id, createdAt] of newestMessage) {
      const conversation = conversations.get(id)!;
      if (createdAt <= conversation.updatedAt) continue;
      conversation.updatedAt = createdAt;
      await tx.update(historyConversations).set({ updatedAt: createdAt, seq: next() }).where(conversationWhere(accountRowId, id));
    }

    if (bytes > 0 && account.bytes + bytes > options.maxBytesPerAccount) throw new HistoryQuotaError(options.maxBytesPerAccount);
    if (seq !== account.seq || bytes !== 0) {
      await tx.update(historyAccounts).set({ seq, bytes: sql`${historyAccounts.bytes} + ${bytes}` }).where(eq(historyAccounts.id, accountRowId));
    }
    return { cursor: seq, conversations: conversationResults, messages: messageResults };
  });
}

function conversationWhere(accountRowId: number, id: string) {
  return and(eq(historyConversations.accountId, accountRowId), eq(historyConversations.id, id));
}

function messageWhere(accountRowId: number, conversationId: string, id: string) {
  return and(eq(historyMessages.accountId, accountRowId), eq(historyMessages.conversationId, conversationId), eq(historyMessages.id, id));
}

async function loadConversations(tx: Tx, accountRowId: number, ids: string[]): Promise<Map<string, KnownConversation>> {
  const known = new Map<string, KnownConversation>();
  if (ids.length === 0) return known;
  const rows = await tx
    .select({
      id: historyConversations.id,
      deleted: historyConversations.deleted,
      titleRev: historyConversations.titleRev,
      pinnedRev: historyConversations.pinnedRev,
      archivedRev: historyConversations.archivedRev,
      updatedAt: historyConversations.updatedAt,
      size: historyConversations.size,
    })
    .from(historyConversations)
    .where(and(eq(historyConversations.accountId, accountRowId), inArray(historyConversations.id, ids)));
  for (const { id, ...row } of rows) known.set(id, row);
  return known;
}

async function loadMessages(tx: Tx, accountRowId: number, refs: { conversationId: string; id: string }[]): Promise<Map<string, KnownMessage>> {
  const known = new Map<string, KnownMessage>();
  if (refs.length === 0) return known;
  const wanted = new Set(refs.map((ref) => messageKey(ref.conversationId, ref.id)));
  const rows = await tx
    .select({
      conversationId: historyMessages.conversationId,
      id: historyMessages.id,
      rev: historyMessages.rev,
      deleted: historyMessages.deleted,
      size: historyMessages.size,
    })
    .from(historyMessages)
    .where(
      and(
        eq(historyMessages.accountId, accountRowId),
        inArray(historyMessages.conversationId, [...new Set(refs.map((ref) => ref.conversationId))]),
        inArray(historyMessages.id, [...new Set(refs.map((ref) => ref.id))]),
      ),
    );
  for (const { conversationId, id, ...row } of rows) {
    const key = messageKey(conversationId, id);
    if (wanted.has(key)) known.set(key, row);
  }
  return known;
}

/** A tombstone for the conversation; its messages and share links go. Returns the change in bytes kept. */
async function deleteConversation(
  tx: Tx,
  accountRowId: number,
  id: string,
  conversations: Map<string, KnownConversation>,
  next: () => number,
  now: number,
): Promise<number> {
  const known = conversations.get(id);
  if (known?.deleted) return 0;
  const removedMessages = await tx
    .delete(historyMessages)
    .where(and(eq(historyMessages.accountId, accountRowId), eq(historyMessages.conversationId, id)))
    .returning({ size: historyMessages.size });
  const removedShares = await tx
    .delete(historyShares)
    .where(and(eq(historyShares.accountId, accountRowId), eq(historyShares.conversationId, id)))
    .returning({ size: historyShares.size });
  const tombstone = { deleted: true, sealedTitle: null, size: 0, seq: next() };
  if (known) await tx.update(historyConversations).set(tombstone).where(conversationWhere(accountRowId, id));
  else await tx.insert(historyConversations).values({ accountId: accountRowId, id, createdAt: now, updatedAt: now, ...tombstone });
  conversations.set(id, { deleted: true, titleRev: 0, pinnedRev: 0, archivedRev: 0, updatedAt: now, size: 0 });
  const sum = (rows: { size: number }[]) => rows.reduce((total, row) => total + row.size, 0);
  return -((known?.size ?? 0) + sum(removedMessages) + sum(removedShares));
}

async function writeConversation(
  tx: Tx,
  accountRowId: number,
  write: ConversationWrite,
  sealedTitle: Uint8Array | undefined,
  titleForNew: () => Uint8Array,
  conversations: Map<string, KnownConversation>,
  next: () => number,
  now: number,
): Promise<{ status: WriteStatus; bytes: number }> {
  const known = conversations.get(write.id);
  if (known?.deleted) return { status: "deleted", bytes: 0 };
  const titleGiven = write.title !== undefined || write.titleEdited !== undefined;
  if (!known) {
    const title = titleForNew();
    const createdAt = write.createdAt ?? now;
    const updatedAt = Math.max(write.updatedAt ?? createdAt, createdAt);
    const size = title.length;
    await tx.insert(historyConversations).values({
      accountId: accountRowId,
      id: write.id,
      seq: next(),
      sealedTitle: title,
      titleEdited: write.titleEdited ?? false,
      titleRev: titleGiven ? write.rev : 0,
      pinned: write.pinned ?? false,
      pinnedRev: write.pinned !== undefined ? write.rev : 0,
      archived: write.archived ?? false,
      archivedRev: write.archived !== undefined ? write.rev : 0,
      createdAt,
      updatedAt,
      size,
    });
    conversations.set(write.id, {
      deleted: false,
      titleRev: titleGiven ? write.rev : 0,
      pinnedRev: write.pinned !== undefined ? write.rev : 0,
      archivedRev: write.archived !== undefined ? write.rev : 0,
      updatedAt,
      size,
    });
    return { status: "applied", bytes: size };
  }

  const changes: Partial<typeof historyConversations.$inferInsert> = {};
  let bytes = 0;
  if (titleGiven && write.rev > known.titleRev) {
    if (sealedTitle) {
      changes.sealedTitle = sealedTitle;
      changes.size = sealedTitle.length;
      bytes = sealedTitle.length - known.size;
      known.size = sealedTitle.length;
    }
    if (write.titleEdited !== undefined) changes.titleEdited = write.titleEdited;
    changes.titleRev = known.titleRev = write.rev;
  }
  if (write.pinned !== undefined && write.rev > known.pinnedRev) {
    changes.pinned = write.pinned;
    changes.pinnedRev = known.pinnedRev = write.rev;
  }
  if (write.archived !== undefined && write.rev > known.archivedRev) {
    changes.archived = write.archived;
    changes.archivedRev = known.archivedRev = write.rev;
  }
  if (write.updatedAt !== undefined && write.updatedAt > known.updatedAt) changes.updatedAt = known.updatedAt = write.updatedAt;
  if (Object.keys(changes).length === 0) return { status: "unchanged", bytes: 0 };
  await tx
    .update(historyConversations)
    .set({ ...changes, seq: next() })
    .where(conversationWhere(accountRowId, write.id));
  return { status: "applied", bytes };
}

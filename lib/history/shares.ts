import "server-only";
/**
 * Share links: a read-only snapshot of one branch of a conversation (the path from its first
 * message to a chosen last one), kept sealed under a random 128-bit id until the owner revokes it
 * or deletes the conversation. The snapshot holds the title and each message's parts, without
 * metadata (no usage, failures or model details), reasoning, or the provider's per-part data.
 */
import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { HistoryDb } from "./database";
import { MAX_SHARE_BYTES, MAX_SHARES_PER_ACCOUNT } from "./limits";
import { sealContext, type ContentSealer } from "./sealing";
import { historyAccounts, historyConversations, historyMessages, historyShares } from "./schema";
import type { MessageRole, ShareSnapshot, ShareSummary } from "./types";

/** Messages of one conversation read to find a branch (ids and links only). */
const MAX_MESSAGES_PER_BRANCH_SEARCH = 20_000;

export type ShareCreation =
  | { kind: "created"; share: ShareSummary }
  | { kind: "conversation_not_found" }
  | { kind: "message_not_found" }
  | { kind: "too_large" }
  | { kind: "too_many" };

/** Part kinds left out of a snapshot: the model's reasoning and stream bookkeeping. */
const LEFT_OUT_PARTS = new Set(["reasoning", "step-start"]);

function shareablePart(part: unknown): unknown {
  if (typeof part !== "object" || part === null) return undefined;
  const { providerMetadata, callProviderMetadata, ...rest } = part as Record<string, unknown>;
  void providerMetadata;
  void callProviderMetadata;
  return typeof rest.type === "string" && !LEFT_OUT_PARTS.has(rest.type) ? rest : undefined;
}

function failed(metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.failure !== undefined || metadata?.failedTurn === true;
}

export async function createShare(
  db: HistoryDb,
  sealer: ContentSealer,
  accountRowId: number,
  conversationId: string,
  leafId: string | undefined,
  now: number,
): Promise<ShareCreation> {
  const [conversation] = await db
    .select({ sealedTitle: historyConversations.sealedTitle, deleted: historyConversations.deleted })
    .from(historyConversations)
    .where(and(eq(historyConversations.accountId, accountRowId), eq(historyConversations.id, conversationId)));
  if (!conversation || conversation.deleted || conversation.sealedTitle === null) return { kind: "conversation_not_found" };
  const [{ count } = { count: 0 }] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(historyShares)
    .where(eq(historyShares.accountId, accountRowId));
  if (count >= MAX_SHARES_PER_ACCOUNT) return { kind: "too_many" };

  const skeleton = await db
    .select({ id: historyMessages.id, parentId: historyMessages.parentId, createdAt: historyMessages.createdAt, size: historyMessages.size })
    .from(historyMessages)
    .where(and(eq(historyMessages.accountId, accountRowId), eq(historyMessages.conversationId, conversationId), eq(historyMessages.deleted, false)))
    .limit(MAX_MESSAGES_PER_BRANCH_SEARCH);
  const byId = new Map(skeleton.map((row) => [row.id, row]));
  const leaf = leafId !== undefined ? byId.get(leafId) : skeleton.reduce<(typeof skeleton)[number] | undefined>((latest, row) => (!latest || row.createdAt > latest.createdAt ? row : latest), undefined);
  if (leafId !== undefined && !leaf) return { kind: "message_not_found" };

  const path: string[] = [];
  let size = 0;
  for (let at = leaf; at && !path.includes(at.id); at = at.parentId === null ? undefined : byId.get(at.parentId)) {
    path.unshift(at.id);
    size += at.size;
    if (size > MAX_SHARE_BYTES) return { kind: "too_large" };
  }

  const title = sealer.open(conversation.sealedTitle, sealContext("title", accountRowId, conversationId)) as { title?: unknown } | undefined;
  const rows =
    path.length === 0
      ? []
      : await db
          .select({ id: historyMessages.id, role: historyMessages.role, createdAt: historyMessages.createdAt, sealedBody: historyMessages.sealedBody })
          .from(historyMessages)
          .where(and(eq(historyMessages.accountId, accountRowId), eq(historyMessages.conversationId, conversationId), inArray(historyMessages.id, path)));
  const messages: ShareSnapshot["messages"] = [];
  for (const id of path) {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row?.sealedBody) continue;
    const body = sealer.open(row.sealedBody, sealContext("message", accountRowId, conversationId, id)) as
      | { parts?: unknown[]; metadata?: Record<string, unknown> }
      | undefined;
    if (!body || !Array.isArray(body.parts) || failed(body.metadata)) continue;
    const parts = body.parts.map(shareablePart).filter((part) => part !== undefined);
    if (parts.length > 0) messages.push({ id, role: row.role as MessageRole, parts, createdAt: row.createdAt });
  }
  const snapshot: ShareSnapshot = { title: typeof title?.title === "string" ? title.title : "", createdAt: now, messages };
  if (Buffer.byteLength(JSON.stringify(snapshot)) > MAX_SHARE_BYTES) return { kind: "too_large" };

  const id = randomBytes(16).toString("base64url");
  const sealed = sealer.seal(snapshot, sealContext("share", accountRowId, id));
  await db.transaction(async (tx) => {
    await tx.insert(historyShares).values({ id, accountId: accountRowId, conversationId, sealedSnapshot: sealed, size: sealed.length, createdAt: now });
    await tx
      .update(historyAccounts)
      .set({ bytes: sql`${historyAccounts.bytes} + ${sealed.length}` })
      .where(eq(historyAccounts.id, accountRowId));
  });
  return { kind: "created", share: { id, conversationId, createdAt: now } };
}

export async function listShares(db: HistoryDb, accountRowId: number): Promise<ShareSummary[]> {
  return db
    .select({ id: historyShares.id, conversationId: historyShares.conversationId, createdAt: historyShares.createdAt })
    .from(historyShares)
    .where(eq(historyShares.accountId, accountRowId))
    .orderBy(desc(historyShares.createdAt))
    .limit(MAX_SHARES_PER_ACCOUNT);
}

/** True when the account had the share (it is gone now). */
export async function revokeShare(db: HistoryDb, accountRowId: number, shareId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(historyShares)
      .where(and(eq(historyShares.accountId, accountRowId), eq(historyShares.id, shareId)))
      .returning({ size: historyShares.size });
    if (!removed) return false;
    await tx
      .update(historyAccounts)
      .set({ bytes: sql`${historyAccounts.bytes} - ${removed.size}` })
      .where(eq(historyAccounts.id, accountRowId));
    return true;
  });
}

/** The snapshot behind a share id, or undefined (unknown, revoked, or sealed under a secret since removed). */
export async function readShare(db: HistoryDb, sealer: ContentSealer, shareId: string): Promise<(ShareSnapshot & { id: string }) | undefined> {
  const [row] = await db
    .select({ accountId: historyShares.accountId, sealed: historyShares.sealedSnapshot })
    .from(historyShares)
    .where(eq(historyShares.id, shareId));
  if (!row) return undefined;
  const snapshot = sealer.open(row.sealed, sealContext("share", row.accountId, shareId)) as ShareSnapshot | undefined;
  return snapshot ? { id: shareId, ...snapshot } : undefined;
}

import "server-only";
/** The person's own instructions, kept with their history, and "delete everything". */
import { eq, sql } from "drizzle-orm";
import type { HistoryDb } from "./database";
import { sealContext, type ContentSealer } from "./sealing";
import { historyAccounts, historyConversations, historyMessages, historyShares } from "./schema";
import type { WriteStatus } from "./types";

/** Sets the instructions ("" removes them) when `rev` is higher than the rev that set the current ones. */
export async function writeInstructions(
  db: HistoryDb,
  sealer: ContentSealer,
  accountRowId: number,
  text: string,
  rev: number,
): Promise<{ status: WriteStatus; cursor: number }> {
  const sealed = text === "" ? null : sealer.seal(text, sealContext("instructions", accountRowId));
  return db.transaction(async (tx) => {
    const [account] = await tx
      .select({ seq: historyAccounts.seq, rev: historyAccounts.instructionsRev, current: historyAccounts.instructions })
      .from(historyAccounts)
      .where(eq(historyAccounts.id, accountRowId))
      .for("update");
    if (!account) throw new Error("the history account row is missing");
    if (rev <= account.rev) return { status: "unchanged", cursor: account.seq };
    const seq = account.seq + 1;
    const bytes = (sealed?.length ?? 0) - (account.current?.length ?? 0);
    await tx
      .update(historyAccounts)
      .set({ instructions: sealed, instructionsRev: rev, instructionsSeq: seq, seq, bytes: sql`${historyAccounts.bytes} + ${bytes}` })
      .where(eq(historyAccounts.id, accountRowId));
    return { status: "applied", cursor: seq };
  });
}

/** The person's instructions, or "" when none (or none this server's secrets open). */
export async function readInstructions(db: HistoryDb, sealer: ContentSealer, accountRowId: number): Promise<string> {
  const [row] = await db.select({ sealed: historyAccounts.instructions }).from(historyAccounts).where(eq(historyAccounts.id, accountRowId));
  if (!row?.sealed) return "";
  const text = sealer.open(row.sealed, sealContext("instructions", accountRowId));
  return typeof text === "string" ? text : "";
}

export interface ClearedCounts {
  conversations: number;
  messages: number;
  shares: number;
}

/**
 * Deletes everything the account kept: conversations (tombstones too), messages, share links and
 * instructions, in one transaction. The change counter goes on, and a cursor from before this
 * point is answered `restart: "cleared"`, so every device learns to drop its copy.
 */
export async function clearAccount(db: HistoryDb, accountRowId: number): Promise<ClearedCounts & { cursor: number }> {
  return db.transaction(async (tx) => {
    const [account] = await tx.select({ seq: historyAccounts.seq }).from(historyAccounts).where(eq(historyAccounts.id, accountRowId)).for("update");
    if (!account) throw new Error("the history account row is missing");
    const messages = await tx.delete(historyMessages).where(eq(historyMessages.accountId, accountRowId)).returning({ deleted: historyMessages.deleted });
    const conversations = await tx
      .delete(historyConversations)
      .where(eq(historyConversations.accountId, accountRowId))
      .returning({ deleted: historyConversations.deleted });
    const shares = await tx.delete(historyShares).where(eq(historyShares.accountId, accountRowId)).returning({ id: historyShares.id });
    const seq = account.seq + 1;
    await tx
      .update(historyAccounts)
      .set({ seq, clearedSeq: seq, bytes: 0, instructions: null, instructionsSeq: 0 })
      .where(eq(historyAccounts.id, accountRowId));
    return {
      cursor: seq,
      conversations: conversations.filter((row) => !row.deleted).length,
      messages: messages.filter((row) => !row.deleted).length,
      shares: shares.length,
    };
  });
}

import "server-only";
/**
 * The chat history as the routes use it: every operation takes the provider account id (never a
 * browser's), finds the account's row, and runs on the database opened on first use.
 */
import { clearAccount, readInstructions, writeInstructions, type ClearedCounts } from "./account-data";
import { createAccountDirectory } from "./accounts";
import { openHistoryDatabase, type HistoryDatabase, type HistoryLocation } from "./database";
import { pullChanges, type PullOutcome } from "./pull";
import { pushChanges } from "./push";
import { createContentSealer } from "./sealing";
import { createShare, listShares, readShare, revokeShare, type ShareCreation } from "./shares";
import type { PushBatch, PushResult, ShareSnapshot, ShareSummary, WriteStatus } from "./types";

/** How long an instance keeps a person's instructions for /responses before reading them again. */
const INSTRUCTIONS_CACHE_MS = 30_000;
const CACHED_INSTRUCTIONS = 10_000;

interface HistoryStoreOptions {
  location: HistoryLocation;
  secrets: readonly string[];
  now: () => number;
  maxBytesPerAccount: number;
}

export interface HistoryStore {
  engine: HistoryLocation["engine"];
  /** Opens the database and applies its migrations (once); the other calls do it when needed. */
  ready(): Promise<void>;
  pull(accountId: string, since: number, limit: number): Promise<PullOutcome>;
  push(accountId: string, batch: PushBatch): Promise<PushResult>;
  writeInstructions(accountId: string, text: string, rev: number): Promise<{ status: WriteStatus; cursor: number }>;
  /** The person's instructions ("" when none), remembered for INSTRUCTIONS_CACHE_MS: /responses reads them on each call. */
  instructionsFor(accountId: string): Promise<string>;
  clear(accountId: string): Promise<ClearedCounts & { cursor: number }>;
  createShare(accountId: string, conversationId: string, leafId: string | undefined): Promise<ShareCreation>;
  listShares(accountId: string): Promise<ShareSummary[]>;
  revokeShare(accountId: string, shareId: string): Promise<boolean>;
  readShare(shareId: string): Promise<(ShareSnapshot & { id: string }) | undefined>;
  close(): Promise<void>;
}

export function createHistoryStore(options: HistoryStoreOptions): HistoryStore {
  const sealer = createContentSealer(options.secrets);
  const accounts = createAccountDirectory(sealer, options.now);
  let opening: Promise<HistoryDatabase> | undefined;
  const database = async () => {
    opening ??= openHistoryDatabase(options.location).catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return (await opening).db;
  };
  const instructions = new Map<string, { text: string; at: number }>();
  const remember = (accountId: string, text: string) => {
    instructions.delete(accountId);
    instructions.set(accountId, { text, at: options.now() });
    if (instructions.size > CACHED_INSTRUCTIONS) instructions.delete(instructions.keys().next().value as string);
  };

  return {
    engine: options.location.engine,
    async ready() {
      await database();
    },
    async pull(accountId, since, limit) {
      const db = await database();
      return pullChanges(db, sealer, await accounts.find(db, accountId), since, limit);
    },
    async push(accountId, batch) {
      const db = await database();
      const row = await accounts.findOrCreate(db, accountId);
      return pushChanges(db, sealer, row, batch, { now: options.now(), maxBytesPerAccount: options.maxBytesPerAccount });
    },
    async writeInstructions(accountId, text, rev) {
      const db = await database();
      const result = await writeInstructions(db, sealer, await accounts.findOrCreate(db, accountId), text, rev);
      instructions.delete(accountId);
      return result;
    },
    async instructionsFor(accountId) {
      const known = instructions.get(accountId);
      if (known && options.now() - known.at < INSTRUCTIONS_CACHE_MS) return known.text;
      const db = await database();
      const row = await accounts.find(db, accountId);
      const text = row === undefined ? "" : await readInstructions(db, sealer, row);
      remember(accountId, text);
      return text;
    },
    async clear(accountId) {
      const db = await database();
      const row = await accounts.find(db, accountId);
      instructions.delete(accountId);
      if (row === undefined) return { cursor: 0, conversations: 0, messages: 0, shares: 0 };
      return clearAccount(db, row);
    },
    async createShare(accountId, conversationId, leafId) {
      const db = await database();
      const row = await accounts.find(db, accountId);
      if (row === undefined) return { kind: "conversation_not_found" };
      return createShare(db, sealer, row, conversationId, leafId, options.now());
    },
    async listShares(accountId) {
      const db = await database();
      const row = await accounts.find(db, accountId);
      return row === undefined ? [] : listShares(db, row);
    },
    async revokeShare(accountId, shareId) {
      const db = await database();
      const row = await accounts.find(db, accountId);
      return row === undefined ? false : revokeShare(db, row, shareId);
    },
    async readShare(shareId) {
      return readShare(await database(), sealer, shareId);
    },
    async close() {
      const open = opening;
      opening = undefined;
      if (open) await (await open.catch(() => undefined))?.close();
    },
  };
}

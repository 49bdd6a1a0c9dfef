/**
 * The chat history's tables (Drizzle's pg-core): one schema for both engines, Postgres and the
 * embedded PGlite, and one set of SQL migrations generated from it (`npm run db:generate` writes
 * them into lib/history/migrations; docs/history.md). No `server-only` marker: drizzle-kit reads
 * this file without the react-server condition.
 *
 * What a database dump shows: ids the browsers made up, parent links, roles, flags, times, sizes
 * and change numbers. Everything a person wrote or was answered (message parts and metadata,
 * titles, their instructions, share snapshots, the provider account id) is sealed (`bytea`
 * columns, lib/history/sealing.ts).
 */
import { bigint, boolean, customType, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/** A sealed value: bytes in both engines (node-postgres gives a Buffer, PGlite a Uint8Array). */
const sealed = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

/** Epoch milliseconds and change numbers stay below 2^53: plain numbers in JavaScript. */
const millis = (name: string) => bigint(name, { mode: "number" });

/**
 * One row per provider account that has kept anything. `key` is an HMAC of the provider account id
 * under the server's secret (lib/history/account-key.ts), so the row names nobody without the secret.
 * `seq` is the account's change counter: every write takes the next numbers, in commit order.
 */
export const historyAccounts = pgTable("history_accounts", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  key: text("key").notNull().unique(),
  /** The provider account id, sealed: lets `npm run db:reseal` compute the key under a new secret. */
  sealedAccount: sealed("sealed_account").notNull(),
  seq: millis("seq").notNull().default(0),
  /** The account's `seq` at its last "delete everything": older cursors must start again. */
  clearedSeq: millis("cleared_seq").notNull().default(0),
  /** Bytes of sealed content kept, for the per-account quota. */
  bytes: millis("bytes").notNull().default(0),
  /** The person's own instructions, sealed; null when none. */
  instructions: sealed("instructions"),
  instructionsRev: millis("instructions_rev").notNull().default(0),
  instructionsSeq: millis("instructions_seq").notNull().default(0),
  createdAt: millis("created_at").notNull(),
});

/**
 * A conversation's metadata. Each field group keeps the `rev` of the write that set it, so writes
 * from two devices merge field by field (the higher rev wins). `deleted` rows are tombstones: the
 * id and the change number only, so the delete reaches every device and nothing brings it back.
 */
export const historyConversations = pgTable(
  "history_conversations",
  {
    accountId: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => historyAccounts.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    seq: millis("seq").notNull(),
    deleted: boolean("deleted").notNull().default(false),
    /** `{title}`, sealed; null on a tombstone. */
    sealedTitle: sealed("sealed_title"),
    titleEdited: boolean("title_edited").notNull().default(false),
    titleRev: millis("title_rev").notNull().default(0),
    pinned: boolean("pinned").notNull().default(false),
    pinnedRev: millis("pinned_rev").notNull().default(0),
    archived: boolean("archived").notNull().default(false),
    archivedRev: millis("archived_rev").notNull().default(0),
    createdAt: millis("created_at").notNull(),
    updatedAt: millis("updated_at").notNull(),
    size: integer("size").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.id] }), index("history_conversations_seq").on(table.accountId, table.seq)],
);

/**
 * One message (a question or an answer). Never replaced by another message: an edit or a
 * regenerate is a new id whose `parent_id` names the message it follows, so branches stay. Only
 * the browser that made an id rewrites it (a streaming answer grows), and only with a higher rev.
 */
export const historyMessages = pgTable(
  "history_messages",
  {
    accountId: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => historyAccounts.id, { onDelete: "cascade" }),
    conversationId: text("conversation_id").notNull(),
    id: text("id").notNull(),
    parentId: text("parent_id"),
    role: text("role").notNull(),
    seq: millis("seq").notNull(),
    rev: millis("rev").notNull(),
    deleted: boolean("deleted").notNull().default(false),
    /** `{parts, metadata}`, sealed; null on a tombstone. */
    sealedBody: sealed("sealed_body"),
    size: integer("size").notNull().default(0),
    createdAt: millis("created_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.conversationId, table.id] }),
    index("history_messages_seq").on(table.accountId, table.seq),
  ],
);

/** A read-only snapshot of one branch of a conversation, public under its random id until revoked. */
export const historyShares = pgTable(
  "history_shares",
  {
    id: text("id").primaryKey(),
    accountId: bigint("account_id", { mode: "number" })
      .notNull()
      .references(() => historyAccounts.id, { onDelete: "cascade" }),
    conversationId: text("conversation_id").notNull(),
    /** `{title, messages}`, sealed. */
    sealedSnapshot: sealed("sealed_snapshot").notNull(),
    size: integer("size").notNull(),
    createdAt: millis("created_at").notNull(),
  },
  (table) => [index("history_shares_account").on(table.accountId, table.conversationId)],
);

/**
 * Shared parts of the chat-history tests: the two engines (the embedded PGlite in a temporary
 * folder, and a throwaway cluster of Debian's Postgres), a harness with history on, and a client's
 * view of the sync API (push, pull every page).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { HistoryLocation } from "@/lib/history/database";
import type { ChangesPage, ConversationChange, MessageChange } from "@/lib/history/types";
import type { HistoryOptions, ProviderHandlerOptions } from "@/lib/server/options";
import { startPostgresServer, type PostgresServer } from "@/test-support/postgres-server";
import { startHarness, type Harness, type HarnessOptions, type TestClient } from "./harness";

export const ENGINES = ["embedded", "postgres"] as const;
type EngineName = (typeof ENGINES)[number];

export interface Engine {
  name: EngineName;
  /** A new, empty history database. */
  location(): Promise<HistoryLocation>;
  /** Everything the engine keeps for `location`, as text a person could read: pg_dump, or the data folder's bytes. */
  dump(location: HistoryLocation): string;
  stop(): Promise<void>;
}

let databases = 0;

export async function startEngine(name: EngineName): Promise<Engine> {
  if (name === "embedded") {
    const root = mkdtempSync(join(tmpdir(), "lwc-history-"));
    return {
      name,
      location: async () => ({ engine: "embedded", dataDir: join(root, `data-${++databases}`) }),
      dump: (location) => (location.engine === "embedded" ? readFolder(location.dataDir) : ""),
      stop: async () => rmSync(root, { recursive: true, force: true }),
    };
  }
  const server: PostgresServer = await startPostgresServer();
  return {
    name,
    location: async () => ({ engine: "postgres", url: await server.createDatabase(`history_${process.pid}_${++databases}`) }),
    dump: (location) => (location.engine === "postgres" ? pgDump(server, location.url) : ""),
    stop: () => server.stop(),
  };
}

/** Every file under a folder, read as latin1 (so any byte sequence, UTF-8 text included, is searchable). */
function readFolder(folder: string): string {
  let text = "";
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    text += statSync(path).isDirectory() ? readFolder(path) : readFileSync(path).toString("latin1");
  }
  return text;
}

function pgDump(server: PostgresServer, url: string): string {
  const database = new URL(url).pathname.slice(1);
  const args = ["-h", "127.0.0.1", "-p", String(server.port), "-U", "postgres", "--data-only", "--inserts", database];
  const bin = readdirSync("/usr/lib/postgresql").map((version) => join("/usr/lib/postgresql", version, "bin", "pg_dump"))[0]!;
  const [command, commandArgs] = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  const dumped = spawnSync(command, commandArgs, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (dumped.status !== 0) throw new Error(`pg_dump failed: ${dumped.stderr}`);
  // bytea is dumped as hex ('\\x7b22…'): decoded too, as anyone reading the dump would.
  const decoded = [...dumped.stdout.matchAll(/'\\x([0-9a-f]*)'/g)].map((match) => Buffer.from(match[1]!, "hex").toString("latin1"));
  return [dumped.stdout, ...decoded].join("\n");
}

/** A harness whose handler keeps history at `location`. */
export function startHistoryHarness(location: HistoryLocation, options: HarnessOptions & { history?: Partial<HistoryOptions> } = {}): Promise<Harness> {
  const handler: ProviderHandlerOptions = { ...options.handler, history: { location, ...options.history } };
  return startHarness({ ...options, handler });
}

interface Pulled {
  cursor: number;
  pages: ChangesPage[];
  conversations: Map<string, ConversationChange>;
  messages: Map<string, MessageChange>;
  instructions?: { text: string; rev: number };
}

/** GET /history/changes page after page from `since`, as a device catching up would; later changes of an id replace earlier ones. */
export async function pullAll(client: TestClient, since = 0, limit?: number): Promise<Pulled> {
  const pulled: Pulled = { cursor: since, pages: [], conversations: new Map(), messages: new Map() };
  for (let round = 0; round < 1000; round++) {
    const reply = await client.get(`/history/changes?since=${pulled.cursor}${limit ? `&limit=${limit}` : ""}`);
    expect(reply.status, reply.text).toBe(200);
    const page = reply.json<ChangesPage>();
    pulled.pages.push(page);
    for (const conversation of page.conversations) pulled.conversations.set(conversation.id, conversation);
    for (const message of page.messages) pulled.messages.set(`${message.conversationId}/${message.id}`, message);
    if (page.instructions) pulled.instructions = page.instructions;
    if (page.restart) return { ...pulled, cursor: page.cursor };
    expect(page.cursor).toBeGreaterThanOrEqual(pulled.cursor);
    pulled.cursor = page.cursor;
    if (!page.more) return pulled;
  }
  throw new Error("pullAll: more than 1000 pages");
}

interface PushReply {
  cursor: number;
  conversations: { id: string; status: string }[];
  messages: { conversationId: string; id: string; status: string }[];
}

export async function push(client: TestClient, body: Record<string, unknown>): Promise<PushReply> {
  const reply = await client.post("/history/changes", body);
  expect(reply.status, reply.text).toBe(200);
  return reply.json<PushReply>();
}

let clock = Date.UTC(2026, 0, 1);
/** A time that only grows (revs and createdAt). */
export const tick = () => ++clock;

export function userMessage(conversationId: string, id: string, text: string, parentId: string | null = null, extra: Record<string, unknown> = {}) {
  return { conversationId, id, parentId, role: "user", parts: [{ type: "text", text }], createdAt: tick(), rev: tick(), ...extra };
}

export function answer(conversationId: string, id: string, text: string, parentId: string, extra: Record<string, unknown> = {}) {
  return { conversationId, id, parentId, role: "assistant", parts: [{ type: "text", text }], metadata: { model: "gpt-5.5" }, createdAt: tick(), rev: tick(), ...extra };
}

export function textOf(message: MessageChange | undefined): string | undefined {
  if (!message || message.deleted) return undefined;
  return (message.parts as { type: string; text?: string }[])
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("");
}

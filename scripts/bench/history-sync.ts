/**
 * `npm run bench:history` (and the end of `npm run bench`): chat history sync through the HTTP API,
 * on the embedded engine (PGlite in a temporary folder) and on Postgres (a throwaway Debian
 * cluster, test-support/postgres-server.ts). An account with 1,000 conversations of 10 turns (20
 * messages) is written through POST /history/changes; then
 *
 * - first sync: a new device pages through GET /history/changes from cursor 0 until `more` is false
 *   (default page size, 1,000 items), three times, median;
 * - one new turn: a device writes a question and its answer, and another device, already up to
 *   date, pulls from its cursor until it holds both; 20 times, median and worst.
 *
 * The handler runs in this process behind a real HTTP server, with the mock provider for sign-in.
 * Beside the wall time, the first sync's CPU time of this process (client, server and, for the
 * embedded engine, the database): on a busy machine the wall time waits for other work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { HistoryLocation } from "../../lib/history/database";
import { createProviderHandler } from "../../lib/server/handler";
import { startMockUpstream, type MockUpstream } from "../../mock-upstream/server";
import { startPostgresServer } from "../../test-support/postgres-server";
import { serveHandler } from "../../test-support/serve-handler";
import { formatTable, median } from "./stats";

const API = "/api/provider";
const CONVERSATIONS = 1_000;
const TURNS = 10;
const PUSH_ITEMS = 200;
const SYNC_RUNS = 3;
const TURN_RUNS = 20;
const SECRET = "history-bench-secret-0123456789-abcdefghij";
const ACCOUNT = { accountId: "acct_history_bench", email: "bench@example.com" };

const QUESTION = "Could you suggest a three-day plan for Kyoto in spring, with temples, gardens and where to eat?";
const ANSWER = `${"Day one: start early at Kiyomizu-dera, walk down through Sannenzaka and Ninenzaka, and have lunch near Yasaka. ".repeat(5)}Enjoy the trip.`;

class Device {
  cookie = "";
  constructor(private readonly url: string) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; bytes: number }> {
    const response = await fetch(`${this.url}${API}${path}`, {
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const rotated = response.headers.getSetCookie().find((line) => line.startsWith("lwc_session="));
    if (rotated) this.cookie = rotated.split(";")[0]!;
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined, bytes: text.length };
  }

  async signIn(mock: MockUpstream): Promise<void> {
    const login = await this.call("POST", "/login");
    if (!mock.approve((login.json as { userCode: string }).userCode, ACCOUNT)) throw new Error("the mock did not know the code");
    const status = await this.call("GET", "/status");
    if ((status.json as { status: string }).status !== "authenticated") throw new Error("sign-in did not complete");
  }

  async push(body: unknown): Promise<void> {
    const reply = await this.call("POST", "/history/changes", body);
    if (reply.status !== 200) throw new Error(`push answered ${reply.status}: ${JSON.stringify(reply.json).slice(0, 200)}`);
  }

  /** Pages from `since` until `more` is false. */
  async pullAll(since: number): Promise<{ cursor: number; pages: number; items: number; bytes: number; ids: Set<string> }> {
    let cursor = since;
    let pages = 0;
    let items = 0;
    let bytes = 0;
    const ids = new Set<string>();
    for (;;) {
      const reply = await this.call("GET", `/history/changes?since=${cursor}`);
      if (reply.status !== 200) throw new Error(`pull answered ${reply.status}`);
      const page = reply.json as { cursor: number; more: boolean; conversations: { id: string }[]; messages: { id: string }[] };
      pages += 1;
      items += page.conversations.length + page.messages.length;
      bytes += reply.bytes;
      for (const message of page.messages) ids.add(message.id);
      cursor = page.cursor;
      if (!page.more) return { cursor, pages, items, bytes, ids };
    }
  }
}

let clock = Date.UTC(2026, 0, 1);
const tick = () => ++clock;

function conversationItems(index: number): unknown[] {
  const id = `conv-${index}`;
  const items: unknown[] = [{ kind: "conversation", id, rev: tick(), title: `Kyoto plan ${index}`, createdAt: tick(), updatedAt: tick() }];
  let parentId: string | null = null;
  for (let turn = 0; turn < TURNS; turn++) {
    const question = `${id}-q${turn}`;
    const answer = `${id}-a${turn}`;
    items.push({ kind: "message", conversationId: id, id: question, parentId, role: "user", parts: [{ type: "text", text: QUESTION }], createdAt: tick(), rev: tick() });
    items.push({ kind: "message", conversationId: id, id: answer, parentId: question, role: "assistant", parts: [{ type: "text", text: ANSWER }], metadata: { model: "gpt-5.5" }, createdAt: tick(), rev: tick() });
    parentId = answer;
  }
  return items;
}

/** Items in batches of at most PUSH_ITEMS, as an offline queue would send them. */
function batches(): unknown[] {
  const all = Array.from({ length: CONVERSATIONS }, (_, index) => conversationItems(index)).flat() as { kind: string }[];
  const out: unknown[] = [];
  for (let at = 0; at < all.length; at += PUSH_ITEMS) {
    const slice = all.slice(at, at + PUSH_ITEMS);
    out.push({
      conversations: slice.filter((item) => item.kind === "conversation").map(({ kind, ...rest }) => (void kind, rest)),
      messages: slice.filter((item) => item.kind === "message").map(({ kind, ...rest }) => (void kind, rest)),
    });
  }
  return out;
}

async function benchEngine(name: string, location: HistoryLocation, mock: MockUpstream): Promise<[string, string, string, string][]> {
  const provider = createProviderHandler({
    secrets: [SECRET],
    upstream: { issuer: mock.issuer, codexBaseUrl: mock.codexBaseUrl },
    loginRateLimit: false,
    history: { location, rateLimit: false },
    logger: { info() {}, warn() {}, error: (line) => console.error(line) },
  });
  const served = await serveHandler(provider.handler);
  try {
    const opened = performance.now();
    await provider.history!.ready();
    const openMs = performance.now() - opened;

    const writer = new Device(served.url);
    await writer.signIn(mock);
    const writing = performance.now();
    const all = batches();
    for (const batch of all) await writer.push(batch);
    const writeMs = performance.now() - writing;

    const firstSyncs: number[] = [];
    const firstSyncCpu: number[] = [];
    let shape = { pages: 0, items: 0, bytes: 0, cursor: 0 };
    for (let run = 0; run < SYNC_RUNS; run++) {
      const device = new Device(served.url);
      await device.signIn(mock);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const pulled = await device.pullAll(0);
      firstSyncs.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      firstSyncCpu.push((used.user + used.system) / 1000);
      if (pulled.ids.size !== CONVERSATIONS * TURNS * 2) throw new Error(`first sync got ${pulled.ids.size} messages`);
      shape = pulled;
    }

    const reader = new Device(served.url);
    await reader.signIn(mock);
    let cursor = (await reader.pullAll(0)).cursor;
    const turns: number[] = [];
    for (let run = 0; run < TURN_RUNS; run++) {
      const question = `new-q${run}`;
      const answer = `new-a${run}`;
      const started = performance.now();
      await writer.push({
        messages: [
          { conversationId: "conv-0", id: question, parentId: null, role: "user", parts: [{ type: "text", text: QUESTION }], createdAt: tick(), rev: tick() },
          { conversationId: "conv-0", id: answer, parentId: question, role: "assistant", parts: [{ type: "text", text: ANSWER }], createdAt: tick(), rev: tick() },
        ],
      });
      const pulled = await reader.pullAll(cursor);
      turns.push(performance.now() - started);
      if (!pulled.ids.has(question) || !pulled.ids.has(answer)) throw new Error("the new turn did not arrive");
      cursor = pulled.cursor;
    }

    const ms = (value: number) => `${value.toFixed(0)} ms`;
    return [
      [`${name}: open and migrate`, ms(openMs), "", ""],
      [`${name}: write ${CONVERSATIONS.toLocaleString("en")} conversations (${all.length} pushes)`, ms(writeMs), "", ""],
      [
        `${name}: first sync of ${CONVERSATIONS.toLocaleString("en")} conversations, new device`,
        ms(median(firstSyncs)),
        `${shape.pages} pages, ${shape.items.toLocaleString("en")} items, ${(shape.bytes / 1e6).toFixed(1)} MB`,
        "< 5 s",
      ],
      [`${name}: the same, CPU time of this process (server, client${name.startsWith("embedded") ? ", PGlite" : ""})`, ms(median(firstSyncCpu)), "", ""],
      [`${name}: one new turn reaching another device (push + pull)`, ms(median(turns)), `worst of ${TURN_RUNS}: ${ms(Math.max(...turns))}`, ""],
    ];
  } finally {
    await served.close();
    await provider.close();
  }
}

const mock = await startMockUpstream({ streamChunkDelayMs: 0 });
const dataRoot = mkdtempSync(join(tmpdir(), "lwc-history-bench-"));
const postgres = await startPostgresServer();
try {
  const rows: [string, string, string, string][] = [["Chat history sync", "Median", "Shape", "Target"]];
  rows.push(...(await benchEngine("embedded (PGlite)", { engine: "embedded", dataDir: join(dataRoot, "data") }, mock)));
  rows.push(...(await benchEngine("Postgres", { engine: "postgres", url: await postgres.createDatabase("history_bench") }, mock)));
  console.log(formatTable(rows));
} finally {
  await postgres.stop();
  await mock.close();
  rmSync(dataRoot, { recursive: true, force: true });
}

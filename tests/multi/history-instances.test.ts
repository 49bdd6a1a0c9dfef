/**
 * Chat history across processes, with the production build (`next start`): two instances sharing
 * one Postgres (and one Redis for the sessions) merge one account's writes, whichever instance a
 * device reaches; starting together, they applied each migration once. Two instances on one embedded data
 * folder: the second refuses the folder, says why, and answers 503 until the first is gone.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startNextServer, type NextServer } from "@/test-support/next-server";
import { startPostgresServer, type PostgresServer } from "@/test-support/postgres-server";
import { startCluster, TEST_SECRET, type Cluster } from "./cluster";
import { SessionClient } from "./session-client";

const json = { "content-type": "application/json" };
const ACCOUNT = { accountId: "acct_history_multi", email: "multi@example.com" };

let clock = Date.UTC(2026, 1, 1);
const tick = () => ++clock;
const message = (conversationId: string, id: string, text: string, parentId: string | null) => ({
  conversationId,
  id,
  parentId,
  role: "user",
  parts: [{ type: "text", text }],
  createdAt: tick(),
  rev: tick(),
});

interface Page {
  cursor: number;
  more: boolean;
  conversations: { id: string; deleted: boolean }[];
  messages: { id: string; deleted: boolean }[];
}

async function pullAll(client: SessionClient, url: string, since = 0) {
  const messages = new Map<string, boolean>();
  const conversations = new Map<string, boolean>();
  let cursor = since;
  for (;;) {
    const page = await client.json<Page>(url, `/history/changes?since=${cursor}`);
    expect(page.status).toBe(200);
    for (const item of page.body.messages) messages.set(item.id, item.deleted);
    for (const item of page.body.conversations) conversations.set(item.id, item.deleted);
    cursor = page.body.cursor;
    if (!page.body.more) return { cursor, messages, conversations };
  }
}

const pushTo = (client: SessionClient, url: string, body: unknown) =>
  client.json<{ messages: { status: string }[] }>(url, "/history/changes", { method: "POST", headers: json, body: JSON.stringify(body) });

describe("two instances sharing one Postgres", () => {
  let postgres: PostgresServer;
  let cluster: Cluster;
  let databaseUrl: string;

  beforeAll(async () => {
    postgres = await startPostgresServer();
    databaseUrl = await postgres.createDatabase("history_multi");
    cluster = await startCluster({ DATABASE_URL: databaseUrl });
  });
  afterAll(async () => {
    await cluster?.stop();
    await postgres?.stop();
  });

  it("both started on the one database, applied each migration once, and log Postgres without its URL", async () => {
    const client = new SessionClient();
    await client.signIn(cluster.a.url, cluster.mock, { accountId: "acct_history_migrations", email: "m@example.com" });
    // A history request on each instance waits for its database (opened and migrated at start).
    expect((await client.json(cluster.a.url, "/history/changes")).status).toBe(200);
    expect((await client.json(cluster.b.url, "/history/changes")).status).toBe(200);
    const journal = JSON.parse(readFileSync(join(process.cwd(), "lib/history/migrations/meta/_journal.json"), "utf8")) as { entries: unknown[] };
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const applied = await db.query("SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations");
      expect(applied.rows[0].count).toBe(journal.entries.length);
    } finally {
      await db.end();
    }
    for (const instance of [cluster.a, cluster.b]) {
      expect(instance.output()).toContain(`chat history: Postgres at 127.0.0.1:${postgres.port}`);
      expect(instance.output()).not.toContain("history_multi");
    }
  });

  it("merges a laptop on one instance and a phone on the other, and a delete reaches back", async () => {
    const laptop = new SessionClient();
    const phone = new SessionClient();
    await laptop.signIn(cluster.a.url, cluster.mock, ACCOUNT);
    await phone.signIn(cluster.b.url, cluster.mock, ACCOUNT);
    expect((await phone.json(cluster.b.url, "/session")).body).toMatchObject({ status: "authenticated", history: "server" });

    await pushTo(laptop, cluster.a.url, { conversations: [{ id: "shared", rev: tick(), title: "Across instances" }], messages: [message("shared", "q1", "first", null)] });
    const [fromLaptop, fromPhone] = await Promise.all([
      pushTo(laptop, cluster.a.url, { messages: [message("shared", "laptop-q2", "from the laptop", "q1")] }),
      pushTo(phone, cluster.b.url, { messages: [message("shared", "phone-q2", "from the phone", "q1")] }),
    ]);
    expect(fromLaptop.body.messages[0]!.status).toBe("applied");
    expect(fromPhone.body.messages[0]!.status).toBe("applied");

    const onPhone = await pullAll(phone, cluster.b.url);
    expect([...onPhone.messages.keys()].sort()).toEqual(["laptop-q2", "phone-q2", "q1"]);
    const onLaptop = await pullAll(laptop, cluster.a.url);
    expect([...onLaptop.messages.keys()].sort()).toEqual(["laptop-q2", "phone-q2", "q1"]);

    await pushTo(phone, cluster.b.url, { deletes: { conversations: ["shared"] } });
    const after = await pullAll(laptop, cluster.a.url, onLaptop.cursor);
    expect(after.conversations.get("shared")).toBe(true);
  });
});

describe("two instances on one embedded data folder", () => {
  let mock: MockUpstream;
  let dataDir: string;
  const servers: NextServer[] = [];

  beforeAll(async () => {
    mock = await startMockUpstream({ streamChunkDelayMs: 0 });
    dataDir = mkdtempSync(join(tmpdir(), "lwc-history-folder-"));
  });
  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the second refuses the folder and answers 503 history_unavailable; once the first stops, it takes over", async () => {
    const env = { LWC_ISSUER_URL: mock.issuer, LWC_CODEX_BASE_URL: mock.codexBaseUrl, LWC_SECRET: TEST_SECRET, LWC_DATA_DIR: dataDir, LWC_ALLOW_MEMORY_STORE: "1" };
    const first = await startNextServer(env);
    servers.push(first);
    const writer = new SessionClient();
    await writer.signIn(first.url, mock, ACCOUNT);
    // Waits for the first instance's database (opened at start, in the background).
    expect((await pushTo(writer, first.url, { messages: [message("c", "kept", "kept by the first", null)] })).status).toBe(200);

    const second = await startNextServer(env);
    servers.push(second);
    const reader = new SessionClient();
    await reader.signIn(second.url, mock, ACCOUNT);
    const refused = await reader.json(second.url, "/history/changes");
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: "history_unavailable", message: expect.any(String) });

    const firstPid = first.pid();
    await first.stop();
    const taken = await pullAll(reader, second.url);
    expect(taken.messages.get("kept")).toBe(false);
    // Logged before its 503 went out (read here, well after, so the pipe has delivered it).
    expect(second.output()).toMatch(new RegExp(`in use by process ${firstPid} on .*: stop that process, give this one its own LWC_DATA_DIR`));
  });
});

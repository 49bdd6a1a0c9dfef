/**
 * The history routes' refusals, each in the contract's JSON shape: not signed in, a foreign
 * Origin, bad bodies and queries, a body over the limit, the per-session rate limit, the quota;
 * history turned off (LWC_CHAT_HISTORY=browser, and Vercel without a database) answering clearly;
 * a database that cannot be reached; and the person's own instructions reaching the model below
 * the server's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optionsFromEnv } from "@/lib/env-options";
import type { HistoryLocation } from "@/lib/history/database";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startPostgresServer } from "@/test-support/postgres-server";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, type Harness, type TestClient } from "./harness";
import { push, startHistoryHarness, tick, userMessage } from "./history-support";

const evidence = createEvidence();
let mock: MockUpstream;
let dataRoot: string;
const harnesses: Harness[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  dataRoot = mkdtempSync(join(tmpdir(), "lwc-history-errors-"));
});
afterAll(async () => {
  await Promise.all(harnesses.map((harness) => harness.close()));
  await mock.close();
  rmSync(dataRoot, { recursive: true, force: true });
});

let folders = 0;
const embedded = (): HistoryLocation => ({ engine: "embedded", dataDir: join(dataRoot, `data-${++folders}`) });

async function signedIn(harness: Harness): Promise<TestClient> {
  const client = harness.client();
  await signIn(harness, client);
  return client;
}

async function historyHarness(options: Parameters<typeof startHistoryHarness>[1] = {}, location = embedded()): Promise<Harness> {
  const harness = await startHistoryHarness(location, { evidence, sharedMock: mock, ...options });
  harnesses.push(harness);
  return harness;
}

describe("refusals", () => {
  let harness: Harness;
  let client: TestClient;
  beforeAll(async () => {
    harness = await historyHarness({ history: { maxBytesPerAccount: 20_000 } });
    client = await signedIn(harness);
  });

  it("401 without a session, on every route but the public share read", async () => {
    const stranger = harness.client();
    for (const [method, path] of [["GET", "/history/changes"], ["POST", "/history/changes"], ["PUT", "/history/instructions"], ["DELETE", "/history"], ["GET", "/history/shares"], ["POST", "/history/shares"], ["DELETE", "/history/shares/abc"]] as const) {
      const reply = await stranger.request(method, path, { headers: { "content-type": "application/json" }, ...(method === "GET" ? {} : { body: "{}" }) });
      expect(reply.status, `${method} ${path}`).toBe(401);
      expect(reply.json()).toEqual({ error: "not_authenticated", message: expect.any(String) });
    }
  });

  it("403 origin_not_allowed for a write from another site", async () => {
    const reply = await client.post("/history/changes", {}, { origin: "https://evil.example" });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual({ error: "origin_not_allowed", origin: "https://evil.example" });
    expect((await client.request("DELETE", "/history", { headers: { origin: "https://evil.example" } })).status).toBe(403);
  });

  it("400 invalid_history_request for a body or query that is not what the API takes, naming where", async () => {
    const cases: [unknown, RegExp][] = [
      ["not json", /must be JSON/],
      [[1, 2], /JSON object/],
      [{ messages: [{ id: "x" }] }, /messages\.0\.conversationId/],
      [{ messages: [userMessage("c", "has space", "hi")] }, /messages\.0\.id: must be 1-128 characters/],
      [{ messages: [userMessage("c", "m", "hi", null, { role: "system" })] }, /messages\.0\.role/],
      [{ messages: [userMessage("c", "m", "hi", null, { parts: [{ type: "file", mediaType: "image/png", url: "https://tracker.example/x.png" }] })] }, /an attached file must be a data: URL/],
      [{ messages: [userMessage("c", "m", "hi", null, { rev: 0 })] }, /messages\.0\.rev/],
      [{ conversations: [{ id: "c", rev: tick(), title: "x".repeat(1001) }] }, /conversations\.0\.title/],
      [{ conversations: [{ id: "c", rev: tick(), owner: "me" }] }, /conversations\.0/],
      [{ messages: Array.from({ length: 201 }, (_, i) => userMessage("c", `m${i}`, "x")) }, /holds 201 items; at most 200/],
    ];
    for (const [body, message] of cases) {
      const reply = await client.post("/history/changes", body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.json()).toEqual({ error: "invalid_history_request", message: expect.stringMatching(message) });
    }
    for (const query of ["since=-1", "since=abc", "limit=0", "limit=1001"]) {
      const reply = await client.get(`/history/changes?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.json()).toMatchObject({ error: "invalid_history_request" });
    }
    const instructions = await client.request("PUT", "/history/instructions", { headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "x".repeat(8001), rev: 1 }) });
    expect(instructions.json()).toMatchObject({ error: "invalid_history_request", message: expect.stringMatching(/text/) });
  });

  it("413 history_request_too_large before reading a body over 4,000,000 bytes", async () => {
    const reply = await client.post("/history/changes", { messages: [userMessage("c", "big", "x".repeat(4_000_001))] });
    expect(reply.status).toBe(413);
    expect(reply.json()).toEqual({ error: "history_request_too_large", maxRequestBytes: 4_000_000 });
  });

  it("409 history_quota_exceeded when a batch would pass the account's quota, and nothing of it is kept", async () => {
    const before = await client.get("/history/changes");
    const reply = await client.post("/history/changes", { messages: [userMessage("q", "small", "fits"), userMessage("q", "big", "y".repeat(25_000))] });
    expect(reply.status).toBe(409);
    expect(reply.json()).toEqual({ error: "history_quota_exceeded", maxBytes: 20_000, message: expect.any(String) });
    expect((await client.get("/history/changes")).text).toBe(before.text);
  });

  it("429 rate_limited past the per-session limit of the history routes", async () => {
    const limited = await historyHarness({ history: { rateLimit: { limit: 3, windowMs: 60_000 } } });
    limited.clock.alignToWindowStart(60_000);
    const device = await signedIn(limited);
    for (let i = 0; i < 3; i++) expect((await device.get("/history/changes")).status).toBe(200);
    const refused = await device.get("/history/changes");
    expect(refused.status).toBe(429);
    expect(refused.json()).toEqual({ error: "rate_limited", retryAfterSeconds: expect.any(Number) });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("history turned off", () => {
  const mockEnv = () => ({ LWC_ISSUER_URL: mock.issuer, LWC_CODEX_BASE_URL: mock.codexBaseUrl, LWC_SECRET: "history-off-test-secret-0123456789-abcdefgh" });

  it.each([
    ["LWC_CHAT_HISTORY=browser", { LWC_CHAT_HISTORY: "browser", DATABASE_URL: "postgres://user:pw@127.0.0.1:1/never" }],
    ["on Vercel without a database", { VERCEL: "1", LWC_ALLOW_MEMORY_STORE: "1" }],
  ])("%s: the session says browser, the routes 403 history_disabled, shares 404", async (_name, env) => {
    const options = optionsFromEnv({ ...mockEnv(), ...env });
    expect(options.history).toBe(false);
    const harness = await startHarness({ evidence, sharedMock: mock, handler: { history: options.history } });
    harnesses.push(harness);
    const client = await signedIn(harness);
    expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated", history: "browser" });
    const pull = await client.get("/history/changes");
    expect(pull.status).toBe(403);
    expect(pull.json()).toEqual({ error: "history_disabled", message: expect.stringContaining("browser") });
    expect((await client.post("/history/changes", {})).status).toBe(403);
    expect((await harness.client().get("/shared/AAAAAAAAAAAAAAAAAAAAAA")).json()).toMatchObject({ error: "share_not_found" });
    // The model calls work as before.
    expect((await client.post("/responses", responsesBody("hello"))).status).toBe(200);
  });

  it("a handler not told about history has no history routes and no history field (embedders unchanged)", async () => {
    const harness = await startHarness({ evidence, sharedMock: mock });
    harnesses.push(harness);
    const client = await signedIn(harness);
    expect((await client.get("/session")).json()).not.toHaveProperty("history");
    const reply = await client.get("/history/changes");
    expect(reply.status).toBe(404);
    expect(reply.text).toBe("Not Found");
  });
});

describe("a database that cannot be reached", () => {
  it("503 history_unavailable with one log line naming no address or password; the model calls go on", async () => {
    const postgres = await startPostgresServer();
    const url = await postgres.createDatabase("soon_gone");
    await postgres.stop();
    const harness = await historyHarness({}, { engine: "postgres", url: url.replace("postgres@", "postgres:hunter2@") });
    const client = await signedIn(harness);
    const reply = await client.get("/history/changes");
    expect(reply.status).toBe(503);
    expect(reply.json()).toEqual({ error: "history_unavailable", message: expect.any(String) });
    const line = evidence.logs.find((log) => log.message.includes("chat history read failed"));
    expect(line?.message).toMatch(/ECONNREFUSED/);
    expect(evidence.logs.some((log) => log.message.includes("hunter2") || log.message.includes(String(postgres.port)))).toBe(false);
    expect((await client.post("/responses", responsesBody("hello"))).status).toBe(200);
  });

  it("a database held up in another instance's migration costs /responses nothing: the call goes without the person's instructions", async () => {
    const postgres = await startPostgresServer();
    try {
      const url = await postgres.createDatabase("held_migration");
      // Another instance in the middle of a long migration holds the migration lock.
      const { Client } = await import("pg");
      const other = new Client({ connectionString: url });
      await other.connect();
      await other.query("SELECT pg_advisory_lock(3141592034)");
      try {
        const harness = await historyHarness({}, { engine: "postgres", url });
        const client = await signedIn(harness);
        const reply = await client.post("/responses", responsesBody("hello"));
        expect(reply.status).toBe(200);
        expect(reply.text).toContain("response.completed");
        expect(evidence.logs.some((log) => log.message.includes("the person's instructions could not be read"))).toBe(true);
      } finally {
        await other.end();
      }
    } finally {
      await postgres.stop();
    }
  });

  it("a second process on one embedded data folder is refused, saying who holds it", async () => {
    const location = embedded();
    const first = await historyHarness({}, location);
    await push(await signedIn(first), { messages: [userMessage("c", "u", "held")] });
    // Another process: simulated by a lock naming a live process that is not this one (the test runner's parent).
    const { openHistoryDatabase } = await import("@/lib/history/database");
    const { writeFileSync } = await import("node:fs");
    await first.provider.history!.close();
    writeFileSync(join(location.engine === "embedded" ? location.dataDir : "", "pglite.lock"), JSON.stringify({ pid: process.ppid, host: (await import("node:os")).hostname() }));
    await expect(openHistoryDatabase(location)).rejects.toThrow(/is in use by process \d+ on .*: stop that process, give this one its own LWC_DATA_DIR, or share a Postgres/);
  });
});

describe("the person's own instructions", () => {
  it("reach the model as a developer message below the server's, also under enforce", async () => {
    for (const instructionsMode of ["default", "enforce"] as const) {
      const harness = await historyHarness({ handler: { responsesProxy: { instructions: "You work for Acme.", instructionsMode } } });
      const client = await signedIn(harness);
      const saved = await client.request("PUT", "/history/instructions", { headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "Call me Ada.", rev: tick() }) });
      expect(saved.json()).toEqual({ status: "applied", cursor: expect.any(Number) });
      expect((await client.post("/responses", responsesBody("hello", { instructions: "From the client." }))).status).toBe(200);
      const sent = mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body as { instructions: string; input: { role: string; content: { text: string }[] }[] };
      const developer = sent.input.filter((item) => item.role === "developer").map((item) => item.content[0]!.text);
      if (instructionsMode === "enforce") {
        expect(sent.instructions).toBe("You work for Acme.");
        expect(developer).toEqual(["From the client.", expect.stringMatching(/\n\nCall me Ada\.$/)]);
      } else {
        expect(sent.instructions).toBe("From the client.");
        expect(developer).toEqual([expect.stringMatching(/\n\nCall me Ada\.$/)]);
      }
      expect(sent.input.at(-1)!.role).toBe("user");
    }
  });

  it("are read from the database once per 30 s per account, and at once after this instance saved new ones", async () => {
    const harness = await historyHarness();
    const client = await signedIn(harness);
    const put = (text: string) =>
      client.request("PUT", "/history/instructions", { headers: { "content-type": "application/json" }, body: JSON.stringify({ text, rev: tick() }) });
    const lastDeveloper = () =>
      (mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body as { input: { role: string; content: { text: string }[] }[] }).input
        .filter((item) => item.role === "developer")
        .map((item) => item.content[0]!.text.split("\n\n")[1]);
    await put("First.");
    await client.post("/responses", responsesBody("hello"));
    expect(lastDeveloper()).toEqual(["First."]);
    await put("");
    await client.post("/responses", responsesBody("hello"));
    expect(lastDeveloper()).toEqual([]);
  });
});

it("leaks no token", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});

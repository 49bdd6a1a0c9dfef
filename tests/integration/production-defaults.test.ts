import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderHandler } from "@/lib/server/handler";
import type { KeyValueStore } from "@/lib/stores/types";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { createEvidence, findLeakedTokens, responsesBody, signIn, startHarness, TEST_SECRET } from "./harness";

const RESPONSES_PATH = "/backend-api/codex/responses";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const evidence = createEvidence();
let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(() => mock.close());

/** The SSE events of a reply body, as `{event, data}`. */
function sseEvents(text: string) {
  return text
    .split("\n\n")
    .map((block) => block.trim())
    .filter((block) => block.startsWith("event: "))
    .map((block) => {
      const [eventLine, dataLine] = block.split("\n");
      return { event: eventLine!.slice("event: ".length), data: JSON.parse(dataLine!.slice("data: ".length)) as Record<string, unknown> };
    });
}

describe("the stream time limit (what a reply does at Vercel's maxDuration)", () => {
  it("ends a reply that streams too long with the in-band error event and cancels the upstream call", async () => {
    const h = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy: { maxStreamMs: 500 } } });
    try {
      const client = h.client();
      await signIn(h, client);
      mock.setOptions({ streamChunkDelayMs: 150 });
      const started = Date.now();
      const reply = await client.post("/responses", responsesBody("a long answer please"));
      const elapsed = Date.now() - started;

      expect(reply.status).toBe(200);
      const events = sseEvents(reply.text);
      expect(events.some((e) => e.event.endsWith(".delta"))).toBe(true);
      expect(events.some((e) => e.event === "response.completed")).toBe(false);
      expect(events.at(-1)).toEqual({
        event: "error",
        data: expect.objectContaining({ type: "error", code: "upstream_stream_interrupted", message: expect.stringMatching(/time limit/) }),
      });
      expect(elapsed).toBeGreaterThanOrEqual(500);
      // The backend sees its request go away.
      await mock.waitForAbort(5_000);
      expect(mock.requests({ path: RESPONSES_PATH }).at(-1)!.aborted).toBe(true);
      const line = evidence.logs.find((l) => l.message.includes("stopped at the time limit"));
      expect(line?.message).toMatch(/^\[login-with-chatgpt\] upstream \/responses stream stopped at the time limit \(500 ms\) request_id=/);
    } finally {
      mock.setOptions({ streamChunkDelayMs: 0 });
      await h.close();
    }
  });

  it("leaves a reply that finishes in time alone", async () => {
    const h = await startHarness({ evidence, sharedMock: mock, handler: { responsesProxy: { maxStreamMs: 10_000 } } });
    try {
      const client = h.client();
      await signIn(h, client);
      const reply = await client.post("/responses", responsesBody("short"));
      expect(sseEvents(reply.text).at(-1)?.event).toBe("response.completed");
    } finally {
      await h.close();
    }
  });
});

describe("x-request-id", () => {
  it("is on every reply: the caller's when it is sane, else a fresh UUID", async () => {
    const h = await startHarness({ evidence, sharedMock: mock });
    try {
      const client = h.client();
      const unknown = await client.get("/nope");
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get("x-request-id")).toMatch(UUID);
      const wrongMethod = await client.request("DELETE", "/session");
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("x-request-id")).toMatch(UUID);
      const session = await client.get("/session", { "x-request-id": "lb-7f3a.42:1" });
      expect(session.headers.get("x-request-id")).toBe("lb-7f3a.42:1");
      for (const insane of ["has space", "x".repeat(129), "quote\"d", "semi;colon"]) {
        const reply = await client.get("/session", { "x-request-id": insane });
        expect(reply.headers.get("x-request-id")).toMatch(UUID);
      }
      const first = await client.get("/session");
      const second = await client.get("/session");
      expect(first.headers.get("x-request-id")).not.toBe(second.headers.get("x-request-id"));
    } finally {
      await h.close();
    }
  });

  it("ends the log lines written for that request", async () => {
    const h = await startHarness({ evidence, sharedMock: mock });
    try {
      const client = h.client();
      await signIn(h, client, { accountId: "acct_reqid", email: "reqid@example.com" });
      // The model list is cached first, so the fault below hits /responses itself.
      expect((await client.get("/models")).status).toBe(200);
      mock.addFault({ fault: "server_error", accountId: "acct_reqid" });
      const logsBefore = evidence.logs.length;
      const reply = await client.post("/responses", responsesBody("anything"));
      expect(reply.status).toBe(500);
      const id = reply.headers.get("x-request-id");
      expect(id).toMatch(UUID);
      const lines = evidence.logs.slice(logsBefore);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line.message.endsWith(` request_id=${id}`)).toBe(true);
    } finally {
      mock.clearFaults();
      await h.close();
    }
  });
});

describe("checkStore (what /api/health reports)", () => {
  const broken: KeyValueStore = {
    kind: "custom",
    get: () => Promise.reject(new Error("connection refused")),
    set: () => Promise.reject(new Error("connection refused")),
    delete: () => Promise.reject(new Error("connection refused")),
    setIfAbsent: () => Promise.reject(new Error("connection refused")),
    deleteIfEquals: () => Promise.reject(new Error("connection refused")),
    replaceIfEquals: () => Promise.reject(new Error("connection refused")),
  };
  const hanging: KeyValueStore = { ...broken, get: () => new Promise<string | null>(() => undefined) };
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

  it("is ok for a store that answers and degraded for one that fails", async () => {
    expect(await createProviderHandler({ secrets: [TEST_SECRET], logger: quiet }).checkStore()).toBe("ok");
    expect(await createProviderHandler({ secrets: [TEST_SECRET], logger: quiet, sessionStore: broken }).checkStore()).toBe("degraded");
  });

  it("gives up on a store that does not answer within 3 seconds", async () => {
    const started = Date.now();
    expect(await createProviderHandler({ secrets: [TEST_SECRET], logger: quiet, sessionStore: hanging }).checkStore()).toBe("degraded");
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });
});

it("leaks no token", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});

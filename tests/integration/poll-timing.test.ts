/**
 * When a pending login's /status may reach the provider (issue #19: "5-6 s between approval and
 * the chat"). Every pending state says how long until the server may poll upstream again
 * (`nextCheckInMs`), so the page's checks land on the provider's interval instead of adding to it;
 * upstream is still polled at most once per interval, counted from the start of the last poll.
 * The provider here takes 800 ms to answer a poll (the test clock moves while it answers).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./harness";

const POLL_PATH = "/api/accounts/deviceauth/token";
const INTERVAL_MS = 5_000;
const SLOW_POLL_MS = 800;

let h: Harness;
const pollCalls = () => h.mock.requests({ path: POLL_PATH }).length;

/** The provider's poll answer arrives SLOW_POLL_MS after it was asked (on the test clock). */
const slowPolls: typeof fetch = async (input, init) => {
  const reply = await fetch(input, init);
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (new URL(url).pathname === POLL_PATH) h.clock.advance(SLOW_POLL_MS);
  return reply;
};

beforeAll(async () => {
  h = await startHarness({ handler: { loginRateLimit: { limit: 1000, windowMs: 60_000 }, upstream: { fetch: slowPolls } } });
});
afterAll(() => h.close());

interface Pending {
  status: string;
  nextCheckInMs?: number;
}

/** `expected` less the real time the test clock also moves between two readings (a busy machine: up to a second). */
function expectAbout(value: number | undefined, expected: number): void {
  expect(value).toBeLessThanOrEqual(expected);
  expect(value).toBeGreaterThan(expected - 1_000);
}

describe("when the next /status may reach the provider", () => {
  it("a new code: the first poll is one interval after it was issued; /session says the same", async () => {
    const client = h.client();
    const login = (await client.post("/login")).json<Pending>();
    expect(login.status).toBe("pending");
    expectAbout(login.nextCheckInMs, INTERVAL_MS);
    h.clock.advance(1_500);
    expectAbout((await client.get("/session")).json<Pending>().nextCheckInMs, INTERVAL_MS - 1_500);
  });

  it("a slow poll does not push the next one back: it is due one interval after the last one started", async () => {
    const client = h.client();
    await client.post("/login");
    h.clock.advance(INTERVAL_MS);
    const polls = pollCalls();
    const first = (await client.get("/status")).json<Pending>();
    expect(pollCalls()).toBe(polls + 1);
    expect(first.status).toBe("pending");
    expectAbout(first.nextCheckInMs, INTERVAL_MS - SLOW_POLL_MS);

    // Asked too early: no poll, and the answer says how long is left.
    h.clock.advance(1_000);
    const early = (await client.get("/status")).json<Pending>();
    expect(pollCalls()).toBe(polls + 1);
    expectAbout(early.nextCheckInMs, INTERVAL_MS - SLOW_POLL_MS - 1_000);

    // Exactly when it said: the provider is asked again.
    h.clock.advance(early.nextCheckInMs!);
    const second = (await client.get("/status")).json<Pending>();
    expect(pollCalls()).toBe(polls + 2);
    expectAbout(second.nextCheckInMs, INTERVAL_MS - SLOW_POLL_MS);
  });

  it("the first check after approval signs in", async () => {
    const client = h.client();
    const { userCode } = (await client.post("/login")).json<{ userCode: string }>();
    h.clock.advance(INTERVAL_MS);
    const pending = (await client.get("/status")).json<Pending>();
    h.mock.approve(userCode);
    h.clock.advance(pending.nextCheckInMs!);
    expect((await client.get("/status")).json<Pending>().status).toBe("authenticated");
  });

  it("requests that find another one polling do not poll, and are told to come back later rather than at once", async () => {
    const client = h.client();
    await client.post("/login");
    h.clock.advance(INTERVAL_MS);
    const polls = pollCalls();
    const replies = (await Promise.all([client.get("/status"), client.get("/status"), client.get("/status")])).map((reply) => reply.json<Pending>());
    expect(pollCalls()).toBe(polls + 1);
    for (const reply of replies) {
      expect(reply.status).toBe("pending");
      expect(reply.nextCheckInMs).toBeGreaterThan(0);
      expect(reply.nextCheckInMs).toBeLessThanOrEqual(INTERVAL_MS);
    }
  });
});

/**
 * The login limits' buckets. A client that reaches the server directly (no proxy in between) writes
 * its own X-Forwarded-For, so its invented addresses must not become buckets: it is counted by the
 * address it connects from. IPv6 forms that embed an IPv4 address count as that IPv4 address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidence, findLeakedTokens, startHarness } from "./harness";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";

const evidence = createEvidence();
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await mock.close();
});

/**
 * The address each request connects from. On loopback every test connection comes from 127.0.0.1,
 * so the test names the connection's address in a header of its own, as the Node server would
 * report a client on the internet (the app reads it from the socket: see login-buckets-next.test.ts).
 */
const PEER_HEADER = "x-test-connection-address";
const peerFromTestHeader = (request: Request) => request.headers.get(PEER_HEADER) ?? undefined;

describe("a client connecting directly, without a proxy (a bare next start)", () => {
  it("110 logins with invented X-Forwarded-For values in a burst do not lock sign-in for anyone else", async () => {
    // The defaults: 10 new codes per address a minute, 100 across all clients.
    const h = await startHarness({ evidence, sharedMock: mock, handler: { peerAddress: peerFromTestHeader } });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 110 }, async (_, i) => {
          const invented = `${10 + (i % 200)}.${i}.7.1`;
          return (await h.client().post("/login", undefined, { "x-forwarded-for": invented, [PEER_HEADER]: "203.0.113.50" })).status;
        }),
      );
      // All of them come from one address: its own bucket, not 110 invented ones.
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(100);
      const other = await h.client().post("/login", undefined, { [PEER_HEADER]: "198.51.100.20" });
      expect(other.status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

describe("IPv6 forms that embed an IPv4 address", () => {
  it.each([
    ["64:ff9b::", "NAT64, 64:ff9b::/96"],
    ["::", "IPv4-compatible, ::/96"],
    ["::ffff:", "IPv4-mapped, ::ffff:0:0/96"],
  ])("%s<IPv4> (%s) counts as its IPv4 address: 12 clients of 12 networks all sign in", async (prefix) => {
    const h = await startHarness({ evidence, sharedMock: mock });
    try {
      const statuses: number[] = [];
      for (let i = 1; i <= 12; i += 1) {
        statuses.push((await h.client().post("/login", undefined, { "x-forwarded-for": `${prefix}198.51.${i}.7` })).status);
      }
      expect(statuses).toEqual(Array(12).fill(200));
    } finally {
      await h.close();
    }
  });
});

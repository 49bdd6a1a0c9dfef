import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "./memory-store";
import { startUpstashStack, uniqueKey, waitFor } from "@/test-support/store-helpers";
import type { KeyValueStore } from "./types";

interface StoreUnderTest {
  store: KeyValueStore;
  stop(): Promise<void>;
}

const VERBATIM_VALUES = [
  "123",
  "-0",
  "1e3",
  "true",
  "null",
  '{"a":1}',
  '["x",2]',
  '"quoted"',
  "",
  "OK",
  "T0s=",
  "  padded  ",
  "héllo wörld ✓ 🙂 日本語",
  "line one\nline two\r\n\ttabbed",
  "x".repeat(64 * 1024),
];

/** The one behaviour every KeyValueStore must have, whatever holds the data. */
function describeStoreContract(name: string, start: () => Promise<StoreUnderTest>) {
  describe(`KeyValueStore contract: ${name}`, () => {
    let subject: StoreUnderTest;
    let store: KeyValueStore;

    beforeAll(async () => {
      subject = await start();
      store = subject.store;
    });
    afterAll(async () => {
      await subject?.stop();
    });

    it("gets null for a missing key, then what was set, then null after delete", async () => {
      const key = uniqueKey("basic");
      expect(await store.get(key)).toBeNull();
      await store.set(key, "first", 60_000);
      expect(await store.get(key)).toBe("first");
      await store.set(key, "second", 60_000);
      expect(await store.get(key)).toBe("second");
      await store.delete(key);
      expect(await store.get(key)).toBeNull();
      await expect(store.delete(key)).resolves.toBeUndefined();
    });

    it("keeps keys apart, including keys with spaces, colons and unicode", async () => {
      const base = uniqueKey("keys");
      const keys = [`${base}:a`, `${base}:a b`, `${base}:ключ`, `${base}:🙂`];
      await Promise.all(keys.map((key, i) => store.set(key, `value-${i}`, 60_000)));
      expect(await Promise.all(keys.map((key) => store.get(key)))).toEqual(["value-0", "value-1", "value-2", "value-3"]);
    });

    it.each(VERBATIM_VALUES.map((value) => [value.length > 40 ? `${value.slice(0, 10)}… (${value.length} chars)` : value, value]))(
      "returns the string %j verbatim",
      async (_label, value) => {
        const key = uniqueKey("verbatim");
        await store.set(key, value, 60_000);
        const read = await store.get(key);
        expect(typeof read).toBe("string");
        expect(read).toBe(value);
      },
    );

    it("expires a key after its TTL, not before, and only that key", async () => {
      // Seconds, not milliseconds: the read right after set must land before expiry even on a loaded machine.
      const ttlMs = 2_500;
      const shortKey = uniqueKey("ttl-short");
      const longKey = uniqueKey("ttl-long");
      await store.set(longKey, "stays", 60_000);
      const setAt = Date.now();
      await store.set(shortKey, "goes", ttlMs);
      expect(await store.get(shortKey)).toBe("goes");
      await waitFor(async () => (await store.get(shortKey)) === null, { timeoutMs: ttlMs + 10_000, what: "the short key to expire" });
      // Gone no earlier than its TTL allows (a few ms of slack for clock granularity).
      expect(Date.now() - setAt).toBeGreaterThanOrEqual(ttlMs - 20);
      expect(await store.get(longKey)).toBe("stays");
    });

    it("restarts the TTL when a key is set again", async () => {
      const key = uniqueKey("ttl-renewed");
      const marker = uniqueKey("ttl-marker");
      await store.set(key, "v1", 300);
      await store.set(key, "v2", 60_000);
      await store.set(marker, "m", 300);
      await waitFor(async () => (await store.get(marker)) === null, { timeoutMs: 5_000, what: "the marker to expire" });
      expect(await store.get(key)).toBe("v2");
    });

    it("rejects a TTL that is not a positive number", async () => {
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.set(uniqueKey("bad-ttl"), "v", ttl)).rejects.toThrow(RangeError);
        await expect(store.setIfAbsent(uniqueKey("bad-ttl"), "v", ttl)).rejects.toThrow(RangeError);
      }
    });

    it("setIfAbsent sets only an absent key and leaves a present one alone", async () => {
      const key = uniqueKey("nx");
      expect(await store.setIfAbsent(key, "owner-a", 60_000)).toBe(true);
      expect(await store.setIfAbsent(key, "owner-b", 60_000)).toBe(false);
      expect(await store.get(key)).toBe("owner-a");
    });

    it("lets exactly one of 50 concurrent setIfAbsent calls win, and keeps the winner's value", async () => {
      const key = uniqueKey("nx-race");
      const contenders = Array.from({ length: 50 }, (_, i) => `contender-${i}`);
      const outcomes = await Promise.all(contenders.map((value) => store.setIfAbsent(key, value, 60_000)));
      const winners = contenders.filter((_, i) => outcomes[i]);
      expect(winners).toHaveLength(1);
      expect(await store.get(key)).toBe(winners[0]);
    });

    it("setIfAbsent succeeds again once the previous holder's TTL ran out", async () => {
      const key = uniqueKey("nx-expiry");
      expect(await store.setIfAbsent(key, "first", 300)).toBe(true);
      await waitFor(() => store.setIfAbsent(key, "second", 60_000), { timeoutMs: 5_000, what: "the lock to free up" });
      expect(await store.get(key)).toBe("second");
    });

    it("deleteIfEquals deletes only its own value", async () => {
      const key = uniqueKey("cad");
      expect(await store.deleteIfEquals(key, "anything")).toBe(false);
      await store.set(key, "mine", 60_000);
      expect(await store.deleteIfEquals(key, "theirs")).toBe(false);
      expect(await store.deleteIfEquals(key, "min")).toBe(false);
      expect(await store.get(key)).toBe("mine");
      expect(await store.deleteIfEquals(key, "mine")).toBe(true);
      expect(await store.get(key)).toBeNull();
      expect(await store.deleteIfEquals(key, "mine")).toBe(false);
    });

    it("a holder whose lock expired cannot release the next holder's lock", async () => {
      const key = uniqueKey("cad-handover");
      expect(await store.setIfAbsent(key, "holder-a", 300)).toBe(true);
      await waitFor(() => store.setIfAbsent(key, "holder-b", 60_000), { timeoutMs: 5_000, what: "holder b to get the lock" });
      expect(await store.deleteIfEquals(key, "holder-a")).toBe(false);
      expect(await store.get(key)).toBe("holder-b");
    });

    it("of 20 concurrent releases with the right value, exactly one deletes", async () => {
      const key = uniqueKey("cad-race");
      await store.set(key, "token", 60_000);
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.deleteIfEquals(key, "token")));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await store.get(key)).toBeNull();
    });

    it("replaceIfEquals writes only over the value it expects, never over an absent key", async () => {
      const key = uniqueKey("cas");
      expect(await store.replaceIfEquals(key, "old", "new", 60_000)).toBe(false);
      expect(await store.get(key)).toBeNull();
      await store.set(key, "old", 60_000);
      expect(await store.replaceIfEquals(key, "other", "new", 60_000)).toBe(false);
      expect(await store.get(key)).toBe("old");
      expect(await store.replaceIfEquals(key, "old", "new", 60_000)).toBe(true);
      expect(await store.get(key)).toBe("new");
      await store.delete(key);
      expect(await store.replaceIfEquals(key, "new", "again", 60_000)).toBe(false);
      expect(await store.get(key)).toBeNull();
    });

    it("of 20 concurrent compare-and-sets on one value, exactly one wins", async () => {
      const key = uniqueKey("cas-race");
      await store.set(key, "seen", 60_000);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.replaceIfEquals(key, "seen", `writer-${i}`, 60_000)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await store.get(key)).toBe(`writer-${outcomes.indexOf(true)}`);
    });
  });
}

describeStoreContract("memory", async () => {
  const store = createMemoryStore();
  expect(store.kind).toBe("memory");
  return { store, stop: async () => {} };
});

describeStoreContract("upstash (REST bridge in front of a real redis-server)", async () => {
  const stack = await startUpstashStack();
  expect(stack.store.kind).toBe("upstash");
  return stack;
});

describe("memory store with an injected clock", () => {
  it("expires an entry exactly when its TTL has passed", async () => {
    let now = 1_000_000;
    const store = createMemoryStore({ now: () => now });
    await store.set("k", "v", 1_000);
    now += 999;
    expect(await store.get("k")).toBe("v");
    now += 1;
    expect(await store.get("k")).toBeNull();
  });

  it("treats an expired entry as absent for setIfAbsent and deleteIfEquals", async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    expect(await store.setIfAbsent("lock", "a", 50)).toBe(true);
    now = 50;
    expect(await store.deleteIfEquals("lock", "a")).toBe(false);
    expect(await store.setIfAbsent("lock", "b", 50)).toBe(true);
    expect(await store.get("lock")).toBe("b");
  });

  it("rounds a fractional TTL up to a whole millisecond", async () => {
    let now = 0;
    const store = createMemoryStore({ now: () => now });
    await store.set("k", "v", 0.2);
    expect(await store.get("k")).toBe("v");
    now = 1;
    expect(await store.get("k")).toBeNull();
  });
});

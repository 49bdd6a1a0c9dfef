import { describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import type { AuthenticatedRecord } from "./record";
import { createSealer } from "./seal";
import { createSessionStore } from "./store";

const SECRET = "session-store-test-secret-0123456789abcdef";

function signedIn(now: number): AuthenticatedRecord {
  return {
    version: 1,
    state: "authenticated",
    loginId: "login-1",
    createdAt: now,
    expiresAt: now + 60_000,
    tokens: { idToken: "id", accessToken: "access-1", refreshToken: "refresh-1", expiresAt: now + 30_000 },
    account: { accountId: "acct", email: "a@example.com", plan: "plus" },
  };
}

describe("createSessionStore", () => {
  it("hands out records nobody can change: a change throws and the next load is as stored", async () => {
    const sessions = createSessionStore(createMemoryStore(), createSealer([SECRET]), Date.now);
    await sessions.save("id-1", signedIn(Date.now()));
    const first = (await sessions.load("id-1")) as AuthenticatedRecord;
    expect(() => {
      first.tokens.accessToken = "changed";
    }).toThrow(TypeError);
    expect(() => {
      first.account.plan = "changed";
    }).toThrow(TypeError);
    const second = (await sessions.load("id-1")) as AuthenticatedRecord;
    expect(second.tokens.accessToken).toBe("access-1");
    expect(second.account.plan).toBe("plus");
  });

  it("validates a stored value once: later loads of the same value reuse the checked record", async () => {
    const sessions = createSessionStore(createMemoryStore(), createSealer([SECRET]), Date.now);
    await sessions.save("id-1", signedIn(Date.now()));
    const first = await sessions.load("id-1");
    expect(await sessions.load("id-1")).toBe(first);
    // A new value (a save) is validated afresh.
    await sessions.save("id-1", { ...(first as AuthenticatedRecord), account: { ...(first as AuthenticatedRecord).account, plan: "pro" } });
    const third = (await sessions.load("id-1")) as AuthenticatedRecord;
    expect(third).not.toBe(first);
    expect(third.account.plan).toBe("pro");
  });

  it("reads a record past its lifetime as none, also when its seal was opened before", async () => {
    let now = Date.now();
    const sessions = createSessionStore(createMemoryStore({ now: () => now }), createSealer([SECRET]), () => now);
    await sessions.save("id-1", signedIn(now));
    expect(await sessions.load("id-1")).not.toBeNull();
    now += 59_000;
    expect(await sessions.load("id-1")).not.toBeNull();
    now += 2_000;
    expect(await sessions.load("id-1")).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import type { AuthenticatedRecord } from "./session-record";
import { createSealer } from "./session-seal";
import { createSessionStore } from "./session-store";

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
  it("gives every load a record of its own: changing one never changes the next load", async () => {
    const sessions = createSessionStore(createMemoryStore(), createSealer([SECRET]), Date.now);
    await sessions.save("id-1", signedIn(Date.now()));
    const first = (await sessions.load("id-1")) as AuthenticatedRecord;
    first.tokens.accessToken = "changed";
    first.account.plan = "changed";
    const second = (await sessions.load("id-1")) as AuthenticatedRecord;
    expect(second.tokens.accessToken).toBe("access-1");
    expect(second.account.plan).toBe("plus");
    expect(second).not.toBe(first);
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

import { describe, expect, it } from "vitest";
import { forwardedClientAddress, loginLimitKeys } from "./client-address";

const withForwardedFor = (value?: string) =>
  new Request("http://app.test/", { headers: value === undefined ? {} : { "x-forwarded-for": value } });

describe("forwardedClientAddress", () => {
  it("takes the entry the outermost trusted proxy wrote, counting from the right", () => {
    const request = withForwardedFor("6.6.6.6, 203.0.113.9, 10.0.0.2");
    expect(forwardedClientAddress(request, 1)).toBe("10.0.0.2");
    expect(forwardedClientAddress(request, 2)).toBe("203.0.113.9");
    expect(forwardedClientAddress(request, 5)).toBe("6.6.6.6");
  });

  it("trusts nothing with 0 hops or without the header", () => {
    expect(forwardedClientAddress(withForwardedFor("203.0.113.9"), 0)).toBe("unknown");
    expect(forwardedClientAddress(withForwardedFor(), 1)).toBe("unknown");
  });
});

describe("loginLimitKeys", () => {
  it("canonicalises IPv4 (port dropped) with its /24", async () => {
    expect(await loginLimitKeys("203.0.113.9")).toEqual({ client: "203.0.113.9", prefix: "203.0.113.0/24" });
    expect(await loginLimitKeys("203.0.113.9:4711")).toEqual({ client: "203.0.113.9", prefix: "203.0.113.0/24" });
  });

  it("canonicalises IPv6 (brackets and port dropped, mapped IPv4 as IPv4) with its /48", async () => {
    const expanded = { client: "2001:db8:1:0:0:0:0:1", prefix: "2001:db8:1::/48" };
    expect(await loginLimitKeys("2001:DB8:1::1")).toEqual(expanded);
    expect(await loginLimitKeys("[2001:db8:1:0::1]:443")).toEqual(expanded);
    expect(await loginLimitKeys("::ffff:198.51.100.7")).toEqual({ client: "198.51.100.7", prefix: "198.51.100.0/24" });
  });

  it("hashes anything else to a fixed length, however long", async () => {
    const huge = await loginLimitKeys("x".repeat(8 * 1024));
    expect(huge.client).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(huge.prefix).toBe(huge.client);
    expect((await loginLimitKeys("999.1.1.1")).client).toMatch(/^sha256:/);
    expect((await loginLimitKeys("user-42")).client).not.toBe((await loginLimitKeys("user-43")).client);
  });
});

import { describe, expect, it } from "vitest";
import { clientAddressOf, forwardedClientAddress, isProxyNetworkAddress, loginLimitKeys } from "./client-address";

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

describe("clientAddressOf", () => {
  const spoofed = withForwardedFor("6.6.6.6, 203.0.113.9");

  it("without the connection's address, trusts X-Forwarded-For as configured", () => {
    expect(clientAddressOf(spoofed, 1, undefined)).toBe("203.0.113.9");
    expect(clientAddressOf(spoofed, 0, undefined)).toBe("unknown");
  });

  it("takes a public peer for the client itself: its X-Forwarded-For is its own invention", () => {
    expect(clientAddressOf(spoofed, 1, "198.51.100.20")).toBe("198.51.100.20");
    expect(clientAddressOf(spoofed, 2, "2001:db8::20")).toBe("2001:db8::20");
  });

  it("reads X-Forwarded-For behind a proxy on loopback or a private network", () => {
    for (const proxy of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.2", "172.20.1.1", "192.168.1.1", "fd00::1"]) {
      expect(clientAddressOf(spoofed, 1, proxy)).toBe("203.0.113.9");
    }
    expect(clientAddressOf(withForwardedFor(), 1, "10.0.0.2")).toBe("10.0.0.2");
  });

  it("with 0 hops the peer is the client, wherever it is", () => {
    expect(clientAddressOf(spoofed, 0, "127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("isProxyNetworkAddress", () => {
  it("knows loopback, private, link-local and unique-local addresses", () => {
    for (const address of ["127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.1.1", "::1", "fc00::1", "fdff::1", "fe80::1", "::ffff:10.0.0.1", "[::1]:3000"]) {
      expect(isProxyNetworkAddress(address), address).toBe(true);
    }
    for (const address of ["203.0.113.9", "172.32.0.1", "172.15.0.1", "8.8.8.8", "2001:db8::1", "64:ff9b::8.8.8.8", "::", "unknown", ""]) {
      expect(isProxyNetworkAddress(address), address).toBe(false);
    }
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

  it("extracts the IPv4 address from the NAT64 (64:ff9b::/96) and IPv4-compatible (::/96) forms", async () => {
    const v4 = { client: "198.51.100.7", prefix: "198.51.100.0/24" };
    expect(await loginLimitKeys("64:ff9b::198.51.100.7")).toEqual(v4);
    expect(await loginLimitKeys("64:ff9b::c633:6407")).toEqual(v4);
    expect(await loginLimitKeys("[64:ff9b::198.51.100.7]:443")).toEqual(v4);
    expect(await loginLimitKeys("::198.51.100.7")).toEqual(v4);
    // The unspecified and loopback addresses are not IPv4 addresses in disguise.
    expect(await loginLimitKeys("::1")).toEqual({ client: "0:0:0:0:0:0:0:1", prefix: "0:0:0::/48" });
    expect((await loginLimitKeys("::")).client).toBe("0:0:0:0:0:0:0:0");
    // Outside the /96: an ordinary IPv6 address of the NAT64 /48.
    expect((await loginLimitKeys("64:ff9b:1::198.51.100.7")).client).toBe("64:ff9b:1:0:0:0:c633:6407");
  });

  it("hashes anything else to a fixed length, however long", async () => {
    const huge = await loginLimitKeys("x".repeat(8 * 1024));
    expect(huge.client).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(huge.prefix).toBe(huge.client);
    expect((await loginLimitKeys("999.1.1.1")).client).toMatch(/^sha256:/);
    expect((await loginLimitKeys("user-42")).client).not.toBe((await loginLimitKeys("user-43")).client);
  });
});

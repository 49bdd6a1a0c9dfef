import { describe, expect, it } from "vitest";
import { forwardedClients, forwardedFromElsewhere, isLoopbackAddress } from "./forwarded-clients";

const headers = (init: Record<string, string>) => new Headers(init);

describe("forwardedClients", () => {
  it("reads RFC 7239 for= values: tokens, quoted IPv6 with a port, several hops and elements", () => {
    expect(forwardedClients(headers({ forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43" }))).toEqual(["192.0.2.60"]);
    expect(forwardedClients(headers({ forwarded: 'For="[2001:db8:cafe::17]:4711"' }))).toEqual(["2001:db8:cafe::17"]);
    expect(forwardedClients(headers({ forwarded: 'for=127.0.0.1, for="[::1]";proto=https, FOR="192.0.2.1:80"' }))).toEqual(["127.0.0.1", "::1", "192.0.2.1"]);
    expect(forwardedClients(headers({ forwarded: "for=unknown, for=_hidden, for=\"_secret:_port\"" }))).toEqual(["unknown", "_hidden", "_secret"]);
    // A quoted value may hold the separators; a backslash escapes the next character.
    expect(forwardedClients(headers({ forwarded: 'by="a;b,c";for="1\\27.0.0.1"' }))).toEqual(["127.0.0.1"]);
    // An element without for= names no client.
    expect(forwardedClients(headers({ forwarded: "proto=https;host=example.com" }))).toEqual([]);
  });

  it("refuses a Forwarded header that does not follow the grammar", () => {
    for (const value of ["for", "for=", 'for="127.0.0.1', "for=127.0.0.1 junk", "for=[::1]", "f r=127.0.0.1", "for=127.0.0.1;;", 'for="127.0.0.1\\']) {
      expect(forwardedClients(headers({ forwarded: value })), value).toBeNull();
    }
  });

  it("reads X-Forwarded-For (every hop) and X-Real-IP, with or without ports", () => {
    expect(forwardedClients(headers({ "x-forwarded-for": "203.0.113.9, 127.0.0.1:5000,[::1]:80, ::1" }))).toEqual(["203.0.113.9", "127.0.0.1", "::1", "::1"]);
    expect(forwardedClients(headers({ "x-real-ip": "192.168.1.20" }))).toEqual(["192.168.1.20"]);
    expect(forwardedClients(headers({}))).toEqual([]);
  });

  it("skips an X-Forwarded-For that is exactly the connection's own address (what Next's server writes when no proxy did)", () => {
    expect(forwardedClients(headers({ "x-forwarded-for": "::ffff:172.17.0.1" }), "::ffff:172.17.0.1")).toEqual([]);
    expect(forwardedClients(headers({ "x-forwarded-for": "192.168.1.20" }), "::ffff:172.17.0.1")).toEqual(["192.168.1.20"]);
    expect(forwardedClients(headers({ "x-forwarded-for": "192.168.1.20, 172.17.0.1" }), "172.17.0.1")).toEqual(["192.168.1.20", "172.17.0.1"]);
    // Forwarded and X-Real-IP are never Next's own.
    expect(forwardedClients(headers({ "x-real-ip": "172.17.0.1" }), "172.17.0.1")).toEqual(["172.17.0.1"]);
  });
});

describe("isLoopbackAddress", () => {
  it("is 127.0.0.0/8 and ::1 in any spelling, mapped IPv4 included", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::FFFF:7f00:1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
  });

  it("is nothing else: other addresses, NAT64 of 127.0.0.1, names, obfuscated nodes, garbage", () => {
    for (const address of ["192.168.1.20", "10.0.0.1", "128.0.0.1", "64:ff9b::127.0.0.1", "::127.0.0.1", "localhost", "unknown", "_hidden", "", "127.0.0", "fe80::1%lo", "::"]) {
      expect(isLoopbackAddress(address), address).toBe(false);
    }
  });
});

describe("forwardedFromElsewhere", () => {
  it("is false without forwarding headers and when every named client is this machine", () => {
    expect(forwardedFromElsewhere(headers({}), undefined)).toBe(false);
    expect(forwardedFromElsewhere(headers({ "x-forwarded-for": "::ffff:127.0.0.1", forwarded: 'for="[::1]:1234"', "x-real-ip": "127.0.0.1" }), "127.0.0.1")).toBe(false);
  });

  it("is true when any hop names another client, an unknown or obfuscated one, or a header cannot be read", () => {
    const cases: Record<string, string>[] = [
      { "x-forwarded-for": "192.168.1.20" },
      { "x-forwarded-for": "192.168.1.20, 127.0.0.1" },
      { "x-forwarded-for": "127.0.0.1, " },
      { "x-real-ip": "10.0.0.7" },
      { forwarded: "for=unknown" },
      { forwarded: "for=_mYhost" },
      { forwarded: 'for="[2001:db8::1]:4711"' },
      { forwarded: "for=127.0.0.1, for=198.51.100.4" },
      { forwarded: "for=" },
      { "x-forwarded-for": "127.0.0.1", forwarded: "for=198.51.100.4" },
    ];
    for (const init of cases) {
      expect(forwardedFromElsewhere(headers(init), undefined), JSON.stringify(init)).toBe(true);
    }
  });
});

import "server-only";
import { isIPv4, isIPv6 } from "node:net";

/**
 * Who the proxies in front of this server say the client is. A proxy on this machine (nginx, Caddy,
 * a tunnel) can make a request from anywhere look local to the loopback checks: it connects from
 * 127.0.0.1 and may rewrite `Host` to 127.0.0.1. What it does say is who it forwarded for, in
 * `Forwarded` (RFC 7239), `X-Forwarded-For` or `X-Real-IP`. Next's own server also fills in
 * `X-Forwarded-For` with the connection's address when nothing did.
 */

/** RFC 7230 `tchar`: what a token (a parameter name or an unquoted value) is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The address in one node (`192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]:4711`, `2001:db8::1`), or
 * the node as written when it is no address (`unknown`, an obfuscated `_name`, garbage).
 */
function nodeAddress(node: string): string {
  const bracketed = /^\[([^\]]*)\](?::(?:\d+|_[A-Za-z0-9._-]+))?$/.exec(node);
  if (bracketed) return bracketed[1]!;
  if (isIPv6(node)) return node;
  const withPort = /^([^:]+):(?:\d+|_[A-Za-z0-9._-]+)$/.exec(node);
  return withPort ? withPort[1]! : node;
}

/**
 * The `for=` values of a `Forwarded` header, each reduced to its address, or null when the header
 * does not follow RFC 7239's grammar: `element *("," element)`, each `pair *(";" pair)`, each
 * `token "=" (token / quoted-string)`.
 */
function forwardedFor(header: string): string[] | null {
  const clients: string[] = [];
  let at = 0;
  const skipSpace = () => {
    while (header[at] === " " || header[at] === "\t") at++;
  };
  for (;;) {
    skipSpace();
    const equals = header.indexOf("=", at);
    if (equals === -1) return null;
    const name = header.slice(at, equals).trim();
    if (!TOKEN.test(name)) return null;
    at = equals + 1;
    let value = "";
    if (header[at] === '"') {
      at++;
      for (;;) {
        const char = header[at];
        if (char === undefined) return null;
        at++;
        if (char === '"') break;
        if (char === "\\") {
          if (header[at] === undefined) return null;
          value += header[at++];
        } else value += char;
      }
    } else {
      const end = /[;,\s]|$/.exec(header.slice(at))!.index;
      value = header.slice(at, at + end);
      if (!TOKEN.test(value)) return null;
      at += end;
    }
    if (name.toLowerCase() === "for") clients.push(nodeAddress(value));
    skipSpace();
    if (at === header.length) return clients;
    if (header[at] !== ";" && header[at] !== ",") return null;
    at++;
  }
}

/**
 * Every client the forwarding headers name (for several hops, each hop's), as addresses where they
 * are addresses; null when one of them cannot be read. No headers: an empty list.
 *
 * `peer` is the connection's own address when the server knows it. Next's server writes it into
 * `X-Forwarded-For` when the request came without one, so an `X-Forwarded-For` that is exactly the
 * peer names no one forwarded for (it is the connection itself, which the peer check judges).
 */
export function forwardedClients(headers: Headers, peer?: string): string[] | null {
  const clients: string[] = [];
  const forwarded = headers.get("forwarded")?.trim();
  if (forwarded) {
    const named = forwardedFor(forwarded);
    if (named === null) return null;
    clients.push(...named);
  }
  for (const name of ["x-forwarded-for", "x-real-ip"] as const) {
    const value = headers.get(name)?.trim();
    if (name === "x-forwarded-for" && peer !== undefined && value === peer) continue;
    if (value) clients.push(...value.split(",").map((entry) => nodeAddress(entry.trim())));
  }
  return clients;
}

/**
 * 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as Node writes a socket's peer
 * address). Not ../client-address.ts's parser: it reads NAT64 and IPv4-compatible forms as IPv4 too,
 * and a NAT64 peer of 127.0.0.1 is a gateway, not this machine.
 */
export function isLoopbackAddress(address: string): boolean {
  if (isIPv4(address)) return address.split(".")[0] === "127";
  if (!isIPv6(address) || !URL.canParse(`http://[${address}]/`)) return false;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  return canonical === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/**
 * True when the forwarding headers name a client that is not this machine: any named client that
 * is not a loopback address (`unknown` and obfuscated names included), or a header that cannot be
 * read. A proxy that names no one leaves the other checks to decide.
 */
export function forwardedFromElsewhere(headers: Headers, peer: string | undefined): boolean {
  const clients = forwardedClients(headers, peer);
  return clients === null || !clients.every(isLoopbackAddress);
}

import "server-only";
/**
 * How many proxies in front of the app append to X-Forwarded-For and can be trusted. 1 fits Vercel,
 * which replaces the header with the address it saw, and one reverse proxy of your own that appends.
 */
export const DEFAULT_TRUSTED_PROXY_HOPS = 1;

/** The shared bucket of requests whose address cannot be known. */
const UNKNOWN_ADDRESS = "unknown";

/**
 * The client's address as the outermost trusted proxy saw it: the `trustedProxyHops`-th
 * X-Forwarded-For entry from the right (entries further left were written by the client and can say
 * anything). 0 hops, or no header: "unknown". Not validated here: see `loginLimitKeys`.
 */
export function forwardedClientAddress(request: Request, trustedProxyHops: number): string {
  if (trustedProxyHops <= 0) return UNKNOWN_ADDRESS;
  const header = request.headers.get("x-forwarded-for");
  if (!header) return UNKNOWN_ADDRESS;
  const entries = header.split(",").map((entry) => entry.trim());
  return entries[Math.max(0, entries.length - trustedProxyHops)] || UNKNOWN_ADDRESS;
}

/**
 * The address the login limits count by.
 *
 * `peer` is the address the TCP connection came from, when the server knows it (the Next.js app on
 * Node reads it from the socket: lib/server/http/connection-peer.ts). A client cannot invent it. A proxy
 * of yours reaches the app from loopback or a private network, so only a peer there is taken for
 * the proxy that `trustedProxyHops` announces; then X-Forwarded-For is read as that setting says.
 * A peer with a public address is the client itself (no proxy is actually there, as on a bare
 * `next start` on the internet): its X-Forwarded-For is its own invention and is ignored. With 0
 * hops the peer is the client too.
 *
 * Without a peer (the handler served by something that does not report it, e.g. a platform that
 * replaces X-Forwarded-For itself) the header is trusted as configured: `forwardedClientAddress`.
 */
export function clientAddressOf(request: Request, trustedProxyHops: number, peer: string | undefined): string {
  if (peer === undefined || peer.trim() === "") return forwardedClientAddress(request, trustedProxyHops);
  if (trustedProxyHops <= 0 || !isProxyNetworkAddress(peer)) return peer;
  const forwarded = forwardedClientAddress(request, trustedProxyHops);
  return forwarded === UNKNOWN_ADDRESS ? peer : forwarded;
}

type ParsedAddress = { kind: "v4"; octets: number[] } | { kind: "v6"; groups: number[] };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIPv4(text: string): number[] | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (as the URL parser canonicalises it), or null. */
function parseIPv6(text: string): number[] | null {
  if (!text.includes(":") || text.length > 64 || !URL.canParse(`http://[${text}]/`)) return null;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes("::") ? canonical.split("::") : [canonical, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  const groups = [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
  return groups.length === 8 ? groups : null;
}

/**
 * An IPv6 address that only carries an IPv4 address, in one of the /96 forms: IPv4-mapped
 * (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and IPv4-compatible (::a.b.c.d; not :: and ::1).
 */
function embeddedIPv4(groups: number[]): number[] | null {
  const [g0, g1, g2, g3, g4, g5, high, low] = groups as [number, number, number, number, number, number, number, number];
  const middleZero = g2 === 0 && g3 === 0 && g4 === 0;
  const mapped = g0 === 0 && g1 === 0 && middleZero && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && middleZero && g5 === 0;
  const compatible = g0 === 0 && g1 === 0 && middleZero && g5 === 0 && (high !== 0 || low > 1);
  return mapped || nat64 || compatible ? [high >> 8, high & 255, low >> 8, low & 255] : null;
}

/** An IP address (an optional port and brackets dropped), IPv4 carried in IPv6 as IPv4; else null. */
function parseAddress(address: string): ParsedAddress | null {
  const text = address.trim();
  const withoutPort = /^\[(.+)\](?::\d+)?$/.exec(text)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text)?.[1] ?? text;
  const v4 = parseIPv4(withoutPort);
  if (v4) return { kind: "v4", octets: v4 };
  const v6 = parseIPv6(withoutPort);
  if (!v6) return null;
  const embedded = embeddedIPv4(v6);
  return embedded ? { kind: "v4", octets: embedded } : { kind: "v6", groups: v6 };
}

/**
 * Loopback, private (RFC 1918), link-local and IPv6 unique-local addresses: where a reverse proxy,
 * a load balancer or a platform's own front end reaches the app from.
 */
export function isProxyNetworkAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (parsed === null) return false;
  if (parsed.kind === "v4") {
    const [a, b] = parsed.octets as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  const [first] = parsed.groups as [number];
  const loopback = parsed.groups.every((group, index) => group === (index === 7 ? 1 : 0));
  return loopback || (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export interface LoginLimitKeys {
  /** The address itself (canonical IP), or a fixed-length hash of anything else. */
  client: string;
  /** The address's network (IPv4 /24, IPv6 /48), so many addresses of one network share a bucket. */
  prefix: string;
}

/**
 * Rate-limit keys of bounded size for a client address: an IP is canonicalised (an optional port is
 * dropped; an IPv4 address carried in IPv6 counts as IPv4), anything else is hashed (SHA-256 hex),
 * so a client can never make the limiter store a string of its choosing.
 */
export async function loginLimitKeys(address: string): Promise<LoginLimitKeys> {
  const text = address.trim();
  if (text === UNKNOWN_ADDRESS) return { client: UNKNOWN_ADDRESS, prefix: UNKNOWN_ADDRESS };
  const parsed = parseAddress(text);
  if (parsed?.kind === "v4") return { client: parsed.octets.join("."), prefix: `${parsed.octets.slice(0, 3).join(".")}.0/24` };
  if (parsed?.kind === "v6") {
    const hex = parsed.groups.map((group) => group.toString(16));
    return { client: hex.join(":"), prefix: `${hex.slice(0, 3).join(":")}::/48` };
  }
  const hashed = `sha256:${await sha256Hex(text)}`;
  return { client: hashed, prefix: hashed };
}

/**
 * How many proxies in front of the app append to X-Forwarded-For and can be trusted. 1 fits Vercel,
 * which replaces the header with the address it saw, and one reverse proxy of your own that appends.
 */
export const DEFAULT_TRUSTED_PROXY_HOPS = 1;

/** The shared bucket of requests whose address cannot be known. */
export const UNKNOWN_ADDRESS = "unknown";

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

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIPv4(text: string): number[] | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** The eight groups of an IPv6 address (as the URL parser canonicalises it), or null. */
function parseIPv6(text: string): string[] | null {
  if (!text.includes(":") || text.length > 64 || !URL.canParse(`http://[${text}]/`)) return null;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes("::") ? canonical.split("::") : [canonical, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups];
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
 * dropped), anything else is hashed (SHA-256 hex), so a client can never make the limiter store a
 * string of its choosing.
 */
export async function loginLimitKeys(address: string): Promise<LoginLimitKeys> {
  const text = address.trim();
  if (text === UNKNOWN_ADDRESS) return { client: UNKNOWN_ADDRESS, prefix: UNKNOWN_ADDRESS };
  const withoutPort = /^\[(.+)\](?::\d+)?$/.exec(text)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text)?.[1] ?? text;
  const v4 = parseIPv4(withoutPort);
  if (v4) return { client: v4.join("."), prefix: `${v4.slice(0, 3).join(".")}.0/24` };
  const v6 = parseIPv6(withoutPort);
  if (v6 && v6.length === 8) {
    const mapped = v6.slice(0, 6).join(":") === "0:0:0:0:0:ffff";
    if (mapped) {
      const [high, low] = [parseInt(v6[6]!, 16), parseInt(v6[7]!, 16)];
      return loginLimitKeys(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return { client: v6.join(":"), prefix: `${v6.slice(0, 3).join(":")}::/48` };
  }
  const hashed = `sha256:${await sha256Hex(text)}`;
  return { client: hashed, prefix: hashed };
}

import "server-only";
/**
 * The hosts a sandboxed codex process may reach, and the parsing the egress proxy does before it
 * checks a request against them. Pure: no I/O.
 *
 * - An entry is a host and a port, from a URL (`https://chatgpt.com/backend-api/codex` →
 *   `chatgpt.com:443`) or written as `host:port` (`[::1]:4010` for IPv6).
 * - A request names its target as a CONNECT authority (`chatgpt.com:443`) or as an absolute-form
 *   URL (`http://127.0.0.1:4010/backend-api/codex/models`).
 * - A target is allowed when an entry has exactly its host (letter case aside) and port. No
 *   wildcards, no suffixes, no address ranges: `api.chatgpt.com` and `chatgpt.com.` are other hosts.
 */

export interface EgressTarget {
  /** Lower case; an IPv6 address without its brackets. */
  host: string;
  port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const IPV6 = /^[0-9a-f:.]+$/;
const PORT = /^[0-9]{1,5}$/;
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "ws:": 80, "https:": 443, "wss:": 443 };

function parsePort(text: string): number | undefined {
  if (!PORT.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** A host as the proxy compares it: a hostname or IPv4 address, or a bracketed IPv6 address (brackets dropped). */
function parseHost(text: string): string | undefined {
  const host = text.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) {
    const inner = host.slice(1, -1);
    return inner.includes(":") && IPV6.test(inner) ? inner : undefined;
  }
  return HOSTNAME.test(host) ? host : undefined;
}

/** `host:port` (a CONNECT request's target; `[v6]:port` for IPv6). Undefined when malformed or without a port. */
export function parseAuthority(authority: string): EgressTarget | undefined {
  const colon = authority.lastIndexOf(":");
  if (colon <= 0) return undefined;
  const host = parseHost(authority.slice(0, colon));
  const port = parsePort(authority.slice(colon + 1));
  return host && port ? { host, port } : undefined;
}

/**
 * The target of an absolute-form request (`http://host[:port]/path`, or `ws://…` for an upgrade).
 * Undefined for anything else: an origin-form path, another scheme, user info in the URL.
 */
export function parseAbsoluteUrl(text: string): EgressTarget | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if ((url.protocol !== "http:" && url.protocol !== "ws:") || url.username || url.password) return undefined;
  return targetOf(url);
}

function targetOf(url: URL): EgressTarget | undefined {
  const host = parseHost(url.hostname);
  const port = url.port ? parsePort(url.port) : DEFAULT_PORTS[url.protocol];
  return host && port ? { host, port } : undefined;
}

/** The host and port an http(s) or ws(s) URL connects to. Throws on anything else. */
export function targetOfUrl(text: string): EgressTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a URL: ${JSON.stringify(text)}`);
  }
  const target = DEFAULT_PORTS[url.protocol] ? targetOf(url) : undefined;
  if (!target) throw new Error(`not an http(s) or ws(s) URL with a host: ${JSON.stringify(text)}`);
  return target;
}

/** One allow-list entry as an operator writes it: a URL, or `host:port`. Throws when it is neither. */
export function parseAllowEntry(entry: string): EgressTarget {
  const text = entry.trim();
  if (text.includes("://")) return targetOfUrl(text);
  const target = parseAuthority(text);
  if (!target) throw new Error(`not a URL or host:port: ${JSON.stringify(text)}`);
  return target;
}

export function formatTarget(target: EgressTarget): string {
  return target.host.includes(":") ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

/** The list without repeats, in first-seen order. */
export function uniqueTargets(targets: EgressTarget[]): EgressTarget[] {
  const seen = new Map<string, EgressTarget>();
  for (const target of targets) seen.set(formatTarget(target), seen.get(formatTarget(target)) ?? target);
  return [...seen.values()];
}

export function isAllowed(allow: readonly EgressTarget[], target: EgressTarget): boolean {
  return allow.some((entry) => entry.port === target.port && entry.host === target.host);
}

import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import { fromBase64Url, toBase64Url } from "./encoding";
import { isSecureRequest } from "./request-origin";

/** The session cookie's settings, resolved from the handler's `cookie` option (lib/server/options.ts). */
export interface ResolvedCookieOptions {
  name: string;
  httpOnly: boolean;
  sameSite: "lax" | "strict" | "none";
  path: string;
  domain?: string;
  secure: boolean | "auto";
  maxAgeSeconds: number;
  hostPrefix: boolean;
}

/** Session ids are 32 random bytes, base64url (43 characters). */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Domain separation: the HMAC key is also used (through iron) to seal records. */
const SIGNATURE_CONTEXT = "lwc-session-cookie.v1.";
/** How many verified cookie values to remember: about one per active session of this instance. */
const VERIFIED_CACHE_SIZE = 1000;

export interface SessionCookieSigner {
  /** `<id>.<HMAC-SHA256 signature>` with the first secret. */
  sign(sessionId: string): Promise<string>;
  /** The session id when any configured secret verifies the value, else null. Constant-time per secret. */
  verify(cookieValue: string): Promise<string | null>;
}

export function createCookieSigner(secrets: readonly string[]): SessionCookieSigner {
  // node:crypto, not crypto.subtle: the same HMAC-SHA256, computed on the spot. crypto.subtle sends
  // each verify to the thread pool and back through promise jobs, which cost more than the HMAC
  // itself on every request of a session.
  const mac = (secret: string, sessionId: string) => createHmac("sha256", secret).update(SIGNATURE_CONTEXT + sessionId).digest();
  // A value that verified once verifies again under the same secrets, and a session sends the same
  // value on every request: remember recent ones (insertion-ordered Map as a small LRU), so the HMAC
  // runs once per cookie value instead of once per request. Only values that verified get in.
  const verified = new Map<string, string>();
  const remember = (cookieValue: string, sessionId: string) => {
    verified.delete(cookieValue);
    verified.set(cookieValue, sessionId);
    if (verified.size > VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
  };

  return {
    async sign(sessionId) {
      const [current] = secrets;
      if (current === undefined) throw new Error("no signing secret");
      return `${sessionId}.${toBase64Url(mac(current, sessionId))}`;
    },
    async verify(cookieValue) {
      const known = verified.get(cookieValue);
      if (known !== undefined) {
        remember(cookieValue, known);
        return known;
      }
      const dot = cookieValue.lastIndexOf(".");
      if (dot <= 0) return null;
      const sessionId = cookieValue.slice(0, dot);
      const signature = fromBase64Url(cookieValue.slice(dot + 1));
      if (!SESSION_ID_PATTERN.test(sessionId) || signature === null || signature.length !== 32) return null;
      for (const secret of secrets) {
        if (timingSafeEqual(mac(secret, sessionId), signature)) {
          remember(cookieValue, sessionId);
          return sessionId;
        }
      }
      return null;
    },
  };
}

function isSecureCookie(request: Request, cookie: ResolvedCookieOptions): boolean {
  return cookie.secure === "auto" ? isSecureRequest(request) : cookie.secure;
}

/**
 * The cookie's name for this request: `<name>` (the contract's `lwc_session`, docs/api.md), or, with the
 * `hostPrefix` opt-in, `__Host-<name>` whenever the cookie is Secure, so a sibling subdomain or a
 * plain-HTTP page cannot set or shadow it.
 */
function sessionCookieName(request: Request, cookie: ResolvedCookieOptions): string {
  return cookie.hostPrefix && isSecureCookie(request, cookie) ? `__Host-${cookie.name}` : cookie.name;
}

/**
 * The one cookie value a request is judged by: the first value of the session cookie whose signature
 * verifies (browsers send the most specific path first). Never more than one store read, however
 * many copies a request carries.
 */
export async function readSessionCookie(
  request: Request,
  cookie: ResolvedCookieOptions,
  signer: SessionCookieSigner,
): Promise<string | null> {
  for (const value of readCookieValues(request, sessionCookieName(request, cookie))) {
    const id = await signer.verify(value);
    if (id !== null) return id;
  }
  return null;
}

/** Every value of the named cookie in the request's Cookie header (browsers may send duplicates). */
export function readCookieValues(request: Request, name: string): string[] {
  const header = request.headers.get("cookie");
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      values.push(decodeURIComponent(value));
    } catch {
      // A malformed escape is simply not our cookie.
    }
  }
  return values;
}

/** The Set-Cookie header value for `value`, with the configured attributes (Max-Age 0 clears it). */
export function serializeSessionCookie(
  request: Request,
  cookie: ResolvedCookieOptions,
  value: string,
  maxAgeSeconds: number = cookie.maxAgeSeconds,
): string {
  const name = sessionCookieName(request, cookie);
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${cookie.path}`, `Max-Age=${maxAgeSeconds}`];
  if (maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (cookie.domain) parts.push(`Domain=${cookie.domain}`);
  if (cookie.httpOnly) parts.push("HttpOnly");
  if (isSecureCookie(request, cookie)) parts.push("Secure");
  parts.push(`SameSite=${cookie.sameSite[0]!.toUpperCase()}${cookie.sameSite.slice(1)}`);
  return parts.join("; ");
}

export function clearSessionCookie(request: Request, cookie: ResolvedCookieOptions): string {
  return serializeSessionCookie(request, cookie, "", 0);
}

import "server-only";
import { constantTimeEquals } from "../http/constant-time";
import { randomId } from "../http/encoding";
import type { MovedRecord, PendingRecord } from "./record";

/**
 * The login nonce: our page's protection against a pending cookie planted in the browser (by a
 * sibling subdomain or a plain-HTTP page), which would show the page someone else's code.
 *
 * A client opts in by sending this header on POST /login (our page always sends it: the nonce it
 * keeps, or `new` while it has none). The login it starts is then bound to it: the reply carries a
 * fresh secret in the same header, the client keeps it (the page: sessionStorage, one per tab) and
 * sends it back on /login, /status and /session. A client that opted in sees, polls and resumes
 * only a pending login whose nonce it sends; anything else reads as no session, and its POST /login
 * starts a fresh login under a new session id.
 *
 * A client that does not send the header (curl, a CLI, another team's frontend) gets the HTTP API
 * as docs/api.md writes it: its login carries no nonce and the cookie alone reuses, shows and completes it.
 */
export const LOGIN_NONCE_HEADER = "x-lwc-login-nonce";

/** What a client that opts in sends in that header while it holds no nonce yet. */
export const LOGIN_NONCE_OPT_IN = "new";

export function newLoginNonce(): string {
  return randomId(16);
}

/** The header's value; null when absent or empty (an empty header counts as absent). */
function sentNonce(request: Request): string | null {
  const sent = request.headers.get(LOGIN_NONCE_HEADER)?.trim();
  return sent ? sent : null;
}

/** True when the request opted in to the login nonce (a login it starts is bound to it). */
export function optsInToLoginNonce(request: Request): boolean {
  return sentNonce(request) !== null;
}

/**
 * Whether this request may see, poll or reuse this pending login: a login started with the cookie
 * alone belongs to any client that has not opted in; a bound one only to the request carrying its nonce.
 */
export function ownsLogin(request: Request, record: PendingRecord | MovedRecord): boolean {
  const sent = sentNonce(request);
  const expected = record.device.nonce;
  if (expected === undefined) return sent === null;
  return sent !== null && constantTimeEquals(sent, expected);
}

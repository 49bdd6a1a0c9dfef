import { randomId } from "./encoding";
import type { PendingRecord } from "./session-record";

/**
 * A pending login belongs to the browser tab that started it: POST /login answers this header with
 * a fresh secret, the tab keeps it (sessionStorage) and sends it back on /login, /status and
 * /session. A cookie planted by someone else comes without it, so it shows no code and polls nothing.
 */
export const LOGIN_NONCE_HEADER = "x-lwc-login-nonce";

export function newLoginNonce(): string {
  return randomId(16);
}

/** Compares every character whatever the first difference is, so timing says nothing about the secret. */
function constantTimeEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

/** True when the request carries the nonce of the tab that started this pending login. */
export function carriesLoginNonce(request: Request, record: PendingRecord): boolean {
  const sent = request.headers.get(LOGIN_NONCE_HEADER);
  const expected = record.device.nonce;
  return sent !== null && expected !== undefined && constantTimeEquals(sent.trim(), expected);
}

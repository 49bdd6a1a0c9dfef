import "server-only";
import type { ApiErrorCode } from "@/lib/error-codes";
import type { PendingRecord, SessionRecord } from "./session-record";

/** What /login, /status, /session and /logout return. Never contains a token. */
export type PublicSessionState =
  | { status: "unauthenticated" }
  | { status: "pending"; userCode: string; verificationUrl: string; interval: number; expiresAt: number; nextCheckInMs: number }
  | { status: "authenticated"; user: { accountId: string; email: string; plan: string } }
  | { status: "expired"; error: ApiErrorCode; message: string }
  | { status: "error"; error: ApiErrorCode; message: string };

export const UNAUTHENTICATED: PublicSessionState = { status: "unauthenticated" };

export const AUTHORIZATION_EXPIRED_MESSAGE = "The sign-in code expired before it was approved. Start a new sign-in.";
export const REFRESH_TOKEN_INVALID_MESSAGE = "The sign-in is no longer valid. Sign in again.";

/**
 * How long until a /status may poll the provider again: one interval after the last poll started
 * (after the code was issued, before the first poll). A check sent then reaches the provider.
 */
function nextCheckInMs(device: PendingRecord["device"], now: number): number {
  return Math.max(0, (device.lastPollAt ?? device.issuedAt) + device.intervalSeconds * 1000 - now);
}

/**
 * The public view of a record. A pending code whose 15 minutes are over reads as expired even
 * before /status has written that down (GET /session must not write).
 */
export function toPublicState(record: SessionRecord | null, now: number): PublicSessionState {
  if (record === null) return UNAUTHENTICATED;
  switch (record.state) {
    case "pending":
      if (now >= record.device.expiresAt) {
        return { status: "expired", error: "authorization_expired", message: AUTHORIZATION_EXPIRED_MESSAGE };
      }
      return {
        status: "pending",
        userCode: record.device.userCode,
        verificationUrl: record.device.verificationUrl,
        interval: record.device.intervalSeconds,
        expiresAt: record.device.expiresAt,
        nextCheckInMs: nextCheckInMs(record.device, now),
      };
    case "authenticated":
      return {
        status: "authenticated",
        user: { accountId: record.account.accountId, email: record.account.email, plan: record.account.plan },
      };
    case "expired":
    case "error":
      return { status: record.state, error: record.failure.code, message: record.failure.message };
    case "moved":
      return UNAUTHENTICATED;
  }
}

import "server-only";
import type { ApiErrorCode } from "@/lib/error-codes";
import { capabilitiesOf, type SessionCapabilities, type SignInKind } from "./capabilities";
import type { PendingRecord, SessionRecord } from "./record";

/**
 * The sign-ins this server offers to this request: `methods` in order; `siwc` only when SIWC is on,
 * `needs_loopback` when the page is not open on a loopback origin (or the server is hosted).
 */
export interface SignInChoices {
  methods: SignInKind[];
  siwc?: "available" | "needs_loopback";
}

/** What /login, /status, /session and /logout return. Never contains a token. */
export type PublicSessionState =
  | { status: "unauthenticated"; signIn?: SignInChoices }
  | { status: "pending"; userCode: string; verificationUrl: string; interval: number; expiresAt: number; nextCheckInMs: number }
  | {
      status: "authenticated";
      user: { accountId: string; email: string; plan: string };
      /** What this session may do besides chat; a client asks this, not how it signed in. */
      capabilities: SessionCapabilities;
      /** How it signed in; absent on a server with the default sign-in (device code only), which means `device`. */
      signIn?: SignInKind;
      /** A SIWC session: whether plan usage was granted, and whether the one-time plan notice is due. */
      siwc?: { planUsage: boolean; showPlanNotice: boolean };
      /** Where this server keeps the person's chats; absent when the handler was not told (see `withHistory`). */
      history?: "server" | "browser";
    }
  | { status: "expired"; error: ApiErrorCode; message: string; signIn?: SignInChoices }
  | { status: "error"; error: ApiErrorCode; message: string; signIn?: SignInChoices };

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
        capabilities: { ...capabilitiesOf(record) },
        ...(record.siwc
          ? {
              signIn: "siwc" as const,
              siwc: { planUsage: record.siwc.planUsage, showPlanNotice: record.siwc.planUsage && record.siwc.planNotice === true },
            }
          : {}),
      };
    case "expired":
    case "error":
      return { status: record.state, error: record.failure.code, message: record.failure.message };
    case "moved":
      return UNAUTHENTICATED;
  }
}

/**
 * The state as this request sees it on a server whose sign-ins are not the default (`choices`
 * given): a signed-out state (unauthenticated, expired, error) lists the sign-ins this request may
 * use, and a signed-in one says how it signed in. With the default (device code only, `choices`
 * undefined) the state is left as it always was, so nothing changes for existing deploys.
 */
export function withSignInChoices(state: PublicSessionState, choices: SignInChoices | undefined): PublicSessionState {
  if (choices === undefined) return state;
  if (state.status === "unauthenticated" || state.status === "expired" || state.status === "error") {
    return { ...state, signIn: choices };
  }
  if (state.status === "authenticated" && state.signIn === undefined) return { ...state, signIn: "device" };
  return state;
}

/**
 * A signed-in state says where chats are kept, on a server whose handler was given the `history`
 * option: `server` (the history routes work) or `browser` (history is off: the browser keeps the
 * chats). Without the option the state is left as it always was.
 */
export function withHistory(state: PublicSessionState, history: { location: unknown } | false | undefined): PublicSessionState {
  if (history === undefined || state.status !== "authenticated") return state;
  return { ...state, history: history ? "server" : "browser" };
}

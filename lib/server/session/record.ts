import "server-only";
import { z } from "zod";
import { API_ERROR_CODES } from "@/lib/error-codes";

/**
 * The server-side record of one login session, sealed (encrypted + authenticated with the secrets)
 * before it reaches the store. "unauthenticated" is never stored: it is the absence of a record.
 */
const deviceSchema = z.object({
  deviceAuthId: z.string(),
  userCode: z.string(),
  intervalSeconds: z.number().int().positive(),
  verificationUrl: z.string(),
  issuedAt: z.number(),
  expiresAt: z.number(),
  /** When this session last polled upstream (epoch ms): polls are spaced by intervalSeconds. */
  lastPollAt: z.number().optional(),
  /**
   * Present when the client that started this login opted in to the login nonce (our page does):
   * the secret its tab keeps (x-lwc-login-nonce), and only a request carrying it sees the code or
   * advances the login. Absent for a login started with the cookie alone (the contract's way, docs/api.md): then
   * only a request that has not opted in sees it.
   */
  nonce: z.string().optional(),
});

const tokensSchema = z.object({
  idToken: z.string(),
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresAt: z.number(),
});

const accountSchema = z.object({
  accountId: z.string(),
  email: z.string(),
  plan: z.string(),
  userId: z.string().optional(),
});

/**
 * Present on a Sign in with ChatGPT session (its presence is what makes it one): the registration's
 * issued client id, the ID token's `sub`, the scopes the token endpoint last granted, and whether
 * they include plan usage (`chatgpt.tokens.use.direct`). `planNotice`: the one-time plan notice is
 * still to be shown (set at a plan-enabled sign-in of an account that has not seen it; POST
 * /siwc/notice clears it). A session signed in without `offline_access` has no refresh token ("").
 */
const siwcSchema = z.object({
  clientId: z.string(),
  subject: z.string(),
  scopes: z.array(z.string()),
  planUsage: z.boolean(),
  planNotice: z.boolean().optional(),
});

const failureSchema = z.object({ code: z.enum(API_ERROR_CODES), message: z.string() });

const commonFields = {
  version: z.literal(1),
  /** Random id of this device login; survives the session-id rotation at sign-in (refresh lock key). */
  loginId: z.string(),
  createdAt: z.number(),
  /** End of the session lifetime (epoch ms); the store TTL and the seal expiry follow it. */
  expiresAt: z.number(),
};

export const sessionRecordSchema = z.discriminatedUnion("state", [
  z.object({ ...commonFields, state: z.literal("pending"), device: deviceSchema }),
  z.object({
    ...commonFields,
    state: z.literal("authenticated"),
    tokens: tokensSchema,
    account: accountSchema,
    siwc: siwcSchema.optional(),
  }),
  z.object({ ...commonFields, state: z.literal("expired"), failure: failureSchema }),
  z.object({ ...commonFields, state: z.literal("error"), failure: failureSchema }),
  /**
   * A pending login that POST /login just moved to a new session id, kept for a few seconds under
   * the old id so that concurrent requests with the old cookie find it (and ask upstream for
   * nothing) instead of finding no session. Reads as no session everywhere else.
   */
  z.object({ ...commonFields, state: z.literal("moved"), device: deviceSchema }),
]);

export type SessionRecord = z.infer<typeof sessionRecordSchema>;
export type PendingRecord = Extract<SessionRecord, { state: "pending" }>;
export type AuthenticatedRecord = Extract<SessionRecord, { state: "authenticated" }>;
export type MovedRecord = Extract<SessionRecord, { state: "moved" }>;

/** A loaded session: the id from the verified cookie and its record. */
export interface LoadedSession<R extends SessionRecord = SessionRecord> {
  id: string;
  record: R;
  /** The stored value the record was read from, when known (for atomic claims and conditional saves). */
  sealed?: string;
}

export function isAuthenticated(session: LoadedSession | null): session is LoadedSession<AuthenticatedRecord> {
  return session?.record.state === "authenticated";
}

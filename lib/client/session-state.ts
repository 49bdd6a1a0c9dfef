/*
 * The public session state, checked by hand rather than with zod: this module is on the sign-in
 * screen, and zod (even zod/mini) would add about 27 KB gzipped to it (`npm run bench`).
 */

import type { ApiErrorCode } from "@/lib/error-codes";

export type SessionStatus = "unauthenticated" | "pending" | "authenticated" | "expired" | "error";

export interface SessionUser {
  accountId: string;
  email: string;
  plan: string;
}

/** The two ways to sign in: the device code, and Sign in with ChatGPT (SIWC, docs/siwc.md). */
export type SignInMethod = "device" | "siwc";

/**
 * Signed out: the ways this server offers. `siwc` is there only when SIWC is on: `available`, or
 * `needs_loopback` when this page is not open on the person's own machine (127.0.0.1).
 */
export interface SignInOptions {
  methods: SignInMethod[];
  siwc?: "available" | "needs_loopback";
}

/** Signed in with SIWC: whether ChatGPT plan usage was granted, and whether the one-time notice is due. */
export interface SiwcSessionInfo {
  planUsage: boolean;
  showPlanNotice: boolean;
}

/**
 * Signed in: what this session may do besides chat (docs/api.md#public-session-state). The page
 * asks this, not how the session signed in, before it offers voice, agent voice or pictures.
 */
export interface SessionCapabilities {
  voice: boolean;
  agentVoice: boolean;
  pictures: boolean;
  tokenExport: boolean;
}

/** What a signed-in session may do when the server does not say (a server from before the field): everything. */
const ALL_CAPABILITIES: SessionCapabilities = { voice: true, agentVoice: true, pictures: true, tokenExport: true };
const CAPABILITIES = ["voice", "agentVoice", "pictures", "tokenExport"] as const;

/** The public session state the service returns from /login, /status, /session and /logout. */
export interface PublicSessionState {
  status: SessionStatus;
  userCode?: string;
  verificationUrl?: string;
  interval?: number;
  expiresAt?: number;
  /** Pending: how long until the server may ask the provider again (ms), so the next /status reaches it. */
  nextCheckInMs?: number;
  user?: SessionUser;
  /** Signed in: what the session may do besides chat. */
  capabilities?: SessionCapabilities;
  /** Why, for `expired` and `error` (a code of lib/error-codes.ts; taken as sent, the list stays out of this bundle). */
  error?: ApiErrorCode;
  message?: string;
  /** Signed out: the ways to sign in (an object); signed in: the way this session signed in. */
  signIn?: SignInOptions | SignInMethod;
  /** Signed in with SIWC. */
  siwc?: SiwcSessionInfo;
  /** POST /logout of a SIWC session: whether ChatGPT confirmed that the app's access was revoked. */
  revocation?: "confirmed" | "unconfirmed";
  /**
   * Signed in: where this server keeps the person's chats. `server`: the history routes sync them
   * (docs/api.md#chat-history); `browser`: history is off on the server, the browser keeps them.
   * Absent: a server that does not say (keep them in the browser).
   */
  history?: "server" | "browser";
}

const STATUSES: readonly string[] = ["unauthenticated", "pending", "authenticated", "expired", "error"];
const TEXT_FIELDS = ["userCode", "verificationUrl", "message"] as const;
const NUMBER_FIELDS = ["interval", "expiresAt", "nextCheckInMs"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseUser(value: unknown): SessionUser | undefined {
  if (!isRecord(value)) return undefined;
  const { accountId, email, plan } = value;
  if (typeof accountId !== "string" || typeof email !== "string" || typeof plan !== "string") return undefined;
  return { accountId, email, plan };
}

const METHODS: readonly string[] = ["device", "siwc"];

function parseSignIn(value: unknown): SignInOptions | SignInMethod | undefined {
  if (typeof value === "string") return METHODS.includes(value) ? (value as SignInMethod) : undefined;
  if (!isRecord(value) || !Array.isArray(value.methods)) return undefined;
  const methods = value.methods.filter((method): method is SignInMethod => typeof method === "string" && METHODS.includes(method));
  if (methods.length !== value.methods.length) return undefined;
  const options: SignInOptions = { methods };
  if (value.siwc !== undefined) {
    if (value.siwc !== "available" && value.siwc !== "needs_loopback") return undefined;
    options.siwc = value.siwc;
  }
  return options;
}

function parseCapabilities(value: unknown): SessionCapabilities | undefined {
  if (!isRecord(value) || CAPABILITIES.some((name) => typeof value[name] !== "boolean")) return undefined;
  return { voice: value.voice as boolean, agentVoice: value.agentVoice as boolean, pictures: value.pictures as boolean, tokenExport: value.tokenExport as boolean };
}

function parseSiwc(value: unknown): SiwcSessionInfo | undefined {
  if (!isRecord(value) || typeof value.planUsage !== "boolean" || typeof value.showPlanNotice !== "boolean") return undefined;
  return { planUsage: value.planUsage, showPlanNotice: value.showPlanNotice };
}

/**
 * The state when `value` has the documented shape (unknown fields dropped), else undefined. A field
 * that is present must have its type; optional fields may be absent.
 */
export function parsePublicSessionState(value: unknown): PublicSessionState | undefined {
  if (!isRecord(value) || typeof value.status !== "string" || !STATUSES.includes(value.status)) return undefined;
  const state: PublicSessionState = { status: value.status as SessionStatus };
  for (const field of TEXT_FIELDS) {
    const fieldValue = value[field];
    if (fieldValue === undefined) continue;
    if (typeof fieldValue !== "string") return undefined;
    state[field] = fieldValue;
  }
  if (value.error !== undefined) {
    if (typeof value.error !== "string") return undefined;
    state.error = value.error as ApiErrorCode;
  }
  for (const field of NUMBER_FIELDS) {
    const fieldValue = value[field];
    if (fieldValue === undefined) continue;
    if (typeof fieldValue !== "number" || !Number.isFinite(fieldValue)) return undefined;
    state[field] = fieldValue;
  }
  if (value.user !== undefined) {
    const user = parseUser(value.user);
    if (!user) return undefined;
    state.user = user;
  }
  if (value.capabilities !== undefined) {
    const capabilities = parseCapabilities(value.capabilities);
    if (!capabilities) return undefined;
    state.capabilities = capabilities;
  }
  if (value.signIn !== undefined) {
    const signIn = parseSignIn(value.signIn);
    if (!signIn) return undefined;
    state.signIn = signIn;
  }
  if (value.siwc !== undefined) {
    const siwc = parseSiwc(value.siwc);
    if (!siwc) return undefined;
    state.siwc = siwc;
  }
  if (value.revocation !== undefined) {
    if (value.revocation !== "confirmed" && value.revocation !== "unconfirmed") return undefined;
    state.revocation = value.revocation;
  }
  if (value.history !== undefined) {
    if (value.history !== "server" && value.history !== "browser") return undefined;
    state.history = value.history;
  }
  return state;
}

/** The ways to sign in a signed-out state offers; a server without SIWC (no `signIn`) offers the device code. */
export function signInOptionsOf(state: PublicSessionState | null): SignInOptions {
  return typeof state?.signIn === "object" ? state.signIn : { methods: ["device"] };
}

/** What a signed-in state may do besides chat (everything, from a server that does not say). */
export function capabilitiesOf(state: PublicSessionState | null): SessionCapabilities {
  return state?.capabilities ?? ALL_CAPABILITIES;
}

/** How a signed-in state signed in (`device` from a server that does not say). */
export function signInMethodOf(state: PublicSessionState | null): SignInMethod {
  return state?.signIn === "siwc" ? "siwc" : "device";
}

/** Poll spacing when the server leaves `interval` out (the provider's own default). */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;

/**
 * How long the page waits before its next GET /status: as long as the server says the provider may
 * not be asked yet (so the check lands on the provider's interval and never adds to it), at most
 * one interval; one interval from a server that does not say.
 */
export function nextCheckDelayMs(state: PublicSessionState): number {
  const intervalMs = Math.max(1, state.interval ?? DEFAULT_POLL_INTERVAL_SECONDS) * 1000;
  if (state.nextCheckInMs === undefined) return intervalMs;
  return Math.min(intervalMs, Math.max(0, state.nextCheckInMs));
}

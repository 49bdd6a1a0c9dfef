import "server-only";
import { ApiError } from "../http/api-error";
import type { AuthenticatedRecord } from "./record";

/** How a login session signed in: the device code, or Sign in with ChatGPT (SIWC). */
export type SignInKind = "device" | "siwc";

/**
 * The one place that tells how a session signed in. Everything else asks the session's
 * capabilities (below) or its model backend (lib/server/models/backend.ts), both chosen by this.
 */
export function signInKindOf(record: AuthenticatedRecord): SignInKind {
  return record.siwc === undefined ? "device" : "siwc";
}

/**
 * What a signed-in session may do besides chat (public state `capabilities`, docs/api.md). A SIWC
 * session's plan usage covers text replies only: no voice, no agent voice, no generated pictures,
 * and its tokens are for this app alone (never exported to server code).
 */
export interface SessionCapabilities {
  /** POST /realtime. */
  voice: boolean;
  /** POST /realtime/app-server and its sub-routes. */
  agentVoice: boolean;
  /** An `image_generation` tool in /responses. */
  pictures: boolean;
  /** `dangerouslyGetTokens` (when the handler allows token export at all). */
  tokenExport: boolean;
}

const CAPABILITIES: Record<SignInKind, Readonly<SessionCapabilities>> = {
  device: Object.freeze({ voice: true, agentVoice: true, pictures: true, tokenExport: true }),
  siwc: Object.freeze({ voice: false, agentVoice: false, pictures: false, tokenExport: false }),
};

export function capabilitiesOf(record: AuthenticatedRecord): Readonly<SessionCapabilities> {
  return CAPABILITIES[signInKindOf(record)];
}

/** Why a route refuses a feature; only a SIWC session lacks any, hence the contract's code (docs/api.md). */
const NOT_AVAILABLE = {
  voice: "Voice is not available when you sign in with ChatGPT: plan usage covers text replies only.",
  agentVoice: "Agent voice is not available when you sign in with ChatGPT: plan usage covers text replies only.",
  pictures: "Image generation is not available when you sign in with ChatGPT.",
} as const;

/** Throws 403 `not_available_with_siwc` unless the session may use `feature`. */
export function requireCapability(record: AuthenticatedRecord, feature: keyof typeof NOT_AVAILABLE): void {
  if (!capabilitiesOf(record)[feature]) throw new ApiError("not_available_with_siwc", { message: NOT_AVAILABLE[feature] });
}

import "server-only";
/**
 * The sign-in methods and the Sign in with ChatGPT (SIWC) settings: validation and defaults, shared
 * by the handler's options (lib/server/options.ts) and the environment (lib/env-options.ts), so a
 * bad value is refused alike wherever it comes from.
 */
import type { SignInKind } from "../session/capabilities";

const SIGN_IN_METHODS = ["device", "siwc"] as const satisfies readonly SignInKind[];

/** OpenAI's issuer and API base (docs/siwc.md); the mock and tests point them elsewhere. */
export const DEFAULT_SIWC_ISSUER = "https://auth.openai.com";
export const DEFAULT_SIWC_API_BASE = "https://api.openai.com/v1";
/**
 * The `resource` of every SIWC authorization, code exchange and refresh: the API the tokens are
 * for, as the spec fixes it. Not LWC_SIWC_API_BASE: a gateway or the mock in front of the API does
 * not change what the tokens are for (the mock accepts this value too).
 */
export const SIWC_RESOURCE = "https://api.openai.com/v1";
/** `agent_name_hint` on a first registration: the app's real name, the same on every install. */
export const DEFAULT_SIWC_AGENT_NAME = "Sign in with ChatGPT (Next.js reference app)";
const MAX_AGENT_NAME_CHARS = 100;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * An issuer or API base: an absolute https URL without query, fragment or credentials (trailing
 * slashes trimmed); plain http only on a loopback host (the offline mock). Null when unusable.
 */
export function normalizeSiwcUrl(value: string): string | null {
  const trimmed = value.trim().replace(/\/+$/, "");
  if (!URL.canParse(trimmed)) return null;
  const url = new URL(trimmed);
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) return null;
  return trimmed;
}

const UUID_V4 = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const JWK_THUMBPRINT = /^urn:ietf:params:oauth:jwk-thumbprint:sha-(?:256|384|512):[A-Za-z0-9_-]{43,86}$/;
const DID_KEY = /^did:key:z[1-9A-HJ-NP-Za-km-z]{20,200}$/;

/** `ext_agent_host_id` formats SIWC accepts: `urn:uuid:` (v4, lower case), an RFC 9278 JWK thumbprint URN, `did:key:`. */
export function isValidHostId(value: string): boolean {
  return UUID_V4.test(value) || JWK_THUMBPRINT.test(value) || DID_KEY.test(value);
}

/** A display name: 1–100 characters, no control characters. */
export function isValidAgentName(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_AGENT_NAME_CHARS && !/[\u0000-\u001f\u007f]/.test(trimmed);
}

/** `device,siwc` → the methods, each once; null for an unknown or an empty list. */
export function parseSignInMethods(value: string): SignInKind[] | null {
  const items = value.split(",").map((item) => item.trim().toLowerCase()).filter((item) => item !== "");
  if (items.length === 0 || items.some((item) => !(SIGN_IN_METHODS as readonly string[]).includes(item))) return null;
  return SIGN_IN_METHODS.filter((method) => items.includes(method));
}

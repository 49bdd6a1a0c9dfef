import "server-only";
import { fromBase64Url } from "./base64url";
import { ProviderAuthError } from "./errors";
import type { AccountInfo, TokenSet } from "./types";

/** Claim namespaces the provider puts in its id and access tokens. */
export const AUTH_CLAIM = "https://api.openai.com/auth";
export const PROFILE_CLAIM = "https://api.openai.com/profile";

type Claims = Record<string, unknown>;

function asRecord(value: unknown): Claims | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Claims) : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/**
 * Decodes a JWT's payload (base64url JSON). The signature is NOT checked: clients of this provider
 * never check it, and we only read claims of tokens we received directly from the issuer over TLS.
 * Returns null for anything that is not a three-part token with a JSON object payload.
 */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  if (typeof token !== "string") return null;
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  const payload = parts[1];
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(payload)) return null;
  try {
    const bytes = fromBase64Url(payload.replace(/={1,2}$/, ""));
    if (!bytes) return null;
    return asRecord(JSON.parse(new TextDecoder().decode(bytes))) ?? null;
  } catch {
    return null;
  }
}

/** The token's `exp` claim (seconds) as epoch milliseconds, or null when absent or not a number. */
export function readJwtExpiry(token: string): number | null {
  const exp = decodeJwtPayload(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) && exp > 0 ? exp * 1000 : null;
}

/**
 * The account behind a token set. Each field is read from the id token first, then the access
 * token. Throws `invalid_token` when neither carries a ChatGPT account id.
 */
export function readAccountInfo(tokens: Pick<TokenSet, "idToken" | "accessToken">): AccountInfo {
  const id = decodeJwtPayload(tokens.idToken) ?? {};
  const access = decodeJwtPayload(tokens.accessToken) ?? {};
  const idAuth = asRecord(id[AUTH_CLAIM]) ?? {};
  const accessAuth = asRecord(access[AUTH_CLAIM]) ?? {};

  const accountId = nonEmptyString(idAuth.chatgpt_account_id) ?? nonEmptyString(accessAuth.chatgpt_account_id);
  if (!accountId) {
    throw new ProviderAuthError("invalid_token", "The tokens carry no ChatGPT account id");
  }
  const plan = nonEmptyString(idAuth.chatgpt_plan_type) ?? nonEmptyString(accessAuth.chatgpt_plan_type) ?? "unknown";
  const email =
    nonEmptyString(id.email) ??
    nonEmptyString(asRecord(id[PROFILE_CLAIM])?.email) ??
    nonEmptyString(asRecord(access[PROFILE_CLAIM])?.email) ??
    "";
  const userId = nonEmptyString(idAuth.chatgpt_user_id) ?? nonEmptyString(accessAuth.chatgpt_user_id);

  const info: AccountInfo = { accountId, email, plan };
  if (userId) info.userId = userId;
  return info;
}

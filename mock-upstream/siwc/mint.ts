import { randomBytes } from "node:crypto";
import type { SiwcContext } from "./context";
import type { RefreshFamily } from "./state";

const AUTH_CLAIM = "https://api.openai.com/auth";

interface MintInput {
  family: RefreshFamily;
  /** The code's nonce (absent on refresh). */
  nonce?: string;
  withIdToken: boolean;
  withScope: boolean;
  /** A different `sub` in the ID token (refresh_other_account switch). */
  idTokenSub?: string;
}

function earliestRefreshAt(siwc: SiwcContext, nowSeconds: number, ttl: number): number | string | null {
  // Unknown meaning; the mock says "not before most of the access token's life is over".
  const at = nowSeconds + Math.max(0, ttl - 300);
  if (siwc.settings.earliestRefreshAt === "null") return null;
  return siwc.settings.earliestRefreshAt === "iso" ? new Date(at * 1000).toISOString() : at;
}

const ID_TOKEN_FLAWS = ["id_token_bad_signature", "id_token_wrong_issuer", "id_token_wrong_audience", "id_token_wrong_nonce", "id_token_expired"] as const;

/** The same JWT with its signature's first byte changed. */
function spoiled(jwt: string): string {
  const [header, payload, signature = ""] = jwt.split(".");
  const bytes = Buffer.from(signature, "base64url");
  bytes[0] = (bytes[0] ?? 0) ^ 0xff;
  return `${header}.${payload}.${bytes.toString("base64url")}`;
}

/** A token response for a family: a new access token, a new refresh token (with offline_access), an ID token. */
export async function mintTokenResponse(siwc: SiwcContext, input: MintInput): Promise<Record<string, unknown>> {
  const { state, settings } = siwc;
  const { family } = input;
  const now = state.nowSeconds();
  const ttl = settings.accessTokenTtlSeconds;
  const account = state.accounts.get(family.sub);
  const jti = randomBytes(16).toString("hex");
  state.accessTokens.set(jti, family.id);
  const accessToken = await siwc.key.sign({
    iss: siwc.issuer(),
    sub: family.sub,
    aud: family.resource,
    client_id: family.clientId,
    scope: family.scopes.join(" "),
    [AUTH_CLAIM]: { per_user_salt: randomBytes(12).toString("base64url"), encrypted_auth_metadata: randomBytes(48).toString("base64url") },
    iat: now,
    nbf: now,
    exp: now + ttl,
    jti,
  });
  const reply: Record<string, unknown> = { access_token: accessToken, token_type: "Bearer", expires_in: ttl };
  if (family.scopes.includes("offline_access")) {
    reply.refresh_token = state.newRefreshToken(family.id, settings.refreshTokenTtlSeconds);
  }
  if (input.withIdToken) {
    const flaw = siwc.switches.takeFirst(ID_TOKEN_FLAWS)?.switch;
    const audience = flaw === "id_token_wrong_audience" ? "oaiapp_someone_else" : family.clientId;
    const nonce = flaw === "id_token_wrong_nonce" ? "not-the-nonce-you-sent" : input.nonce;
    const issuedAt = flaw === "id_token_expired" ? now - 7200 : now;
    const idToken = await siwc.key.sign({
      iss: flaw === "id_token_wrong_issuer" ? "https://issuer.invalid" : siwc.issuer(),
      aud: settings.idTokenAud === "array" ? [audience] : audience,
      sub: input.idTokenSub ?? family.sub,
      email: account?.email,
      email_verified: true,
      name: account?.name,
      ...(nonce ? { nonce } : {}),
      iat: issuedAt,
      auth_time: issuedAt,
      exp: issuedAt + 3600,
      jti: randomBytes(12).toString("hex"),
    });
    reply.id_token = flaw === "id_token_bad_signature" ? spoiled(idToken) : idToken;
  }
  if (input.withScope) reply.scope = [...family.scopes].sort().join(" ");
  reply.earliest_refresh_at = earliestRefreshAt(siwc, now, ttl);
  return reply;
}

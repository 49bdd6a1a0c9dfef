import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { MockAccount } from "./types";

const AUTH_CLAIM = "https://api.openai.com/auth";
const PROFILE_CLAIM = "https://api.openai.com/profile";

function base64url(input: Buffer | string): string {
  return Buffer.from(input).toString("base64url");
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

interface MintedTokens {
  id_token: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "Bearer";
  scope: string;
}

interface RefreshRecord {
  familyId: string;
  used: boolean;
}

interface TokenFamily {
  account: MockAccount;
  revoked: boolean;
}

type RefreshOutcome =
  | { ok: true; tokens: MintedTokens; account: MockAccount }
  | { ok: false; code: "refresh_token_reused" | "refresh_token_invalidated" | "refresh_token_expired"; message: string };

interface AccessTokenClaims {
  accountId: string;
  plan: string;
  exp: number;
}

const SCOPE = "openid profile email offline_access";

/**
 * Mints and checks tokens like the identity provider: HS256 JWTs with the provider's claim layout,
 * and opaque single-use refresh tokens grouped in families (one family per login).
 */
export class TokenAuthority {
  private readonly key = randomBytes(32);
  private readonly refreshTokens = new Map<string, RefreshRecord>();
  private readonly families = new Map<string, TokenFamily>();

  constructor(
    private readonly issuer: string,
    private readonly clientId: string,
    private readonly accessTokenTtlSeconds: () => number,
  ) {}

  /** A new login: new family, first token set. */
  issueForLogin(account: MockAccount): MintedTokens {
    const familyId = randomToken(12);
    this.families.set(familyId, { account: { ...account }, revoked: false });
    return this.mint(familyId, account);
  }

  /** Rotation with reuse detection: a used token kills the whole family. */
  refresh(refreshToken: string): RefreshOutcome {
    const record = this.refreshTokens.get(refreshToken);
    if (!record) {
      return { ok: false, code: "refresh_token_invalidated", message: "Your refresh token is not valid. Please sign in again." };
    }
    const family = this.families.get(record.familyId)!;
    if (record.used) {
      family.revoked = true;
      return {
        ok: false,
        code: "refresh_token_reused",
        message: "Your refresh token has already been used to generate a new access token. Please try signing in again.",
      };
    }
    if (family.revoked) {
      return { ok: false, code: "refresh_token_invalidated", message: "Your refresh token has been invalidated. Please try signing in again." };
    }
    record.used = true;
    return { ok: true, tokens: this.mint(record.familyId, family.account), account: family.account };
  }

  /** Account of a refresh token we issued (used or not), for per-account faults. */
  accountOfRefreshToken(refreshToken: string): MockAccount | undefined {
    const record = this.refreshTokens.get(refreshToken);
    return record ? this.families.get(record.familyId)?.account : undefined;
  }

  /** Revoke the family of a refresh token (or of an access token's login). Unknown tokens: no-op. */
  revoke(token: string): boolean {
    const familyId = this.refreshTokens.get(token)?.familyId ?? this.familyOfAccessToken(token);
    const family = familyId ? this.families.get(familyId) : undefined;
    if (!family) return false;
    family.revoked = true;
    return true;
  }

  /** Checks signature and expiry, like the backend does; does not look at revocation (JWTs are stateless). */
  verifyAccessToken(token: string, nowSeconds = Math.floor(Date.now() / 1000)):
    | { ok: true; claims: AccessTokenClaims }
    | { ok: false; reason: "invalid" | "expired" } {
    const payload = this.verifySignature(token);
    if (!payload) return { ok: false, reason: "invalid" };
    const auth = payload[AUTH_CLAIM] as Record<string, unknown> | undefined;
    const exp = payload.exp;
    if (typeof exp !== "number" || typeof auth?.chatgpt_account_id !== "string") return { ok: false, reason: "invalid" };
    if (exp <= nowSeconds) return { ok: false, reason: "expired" };
    return { ok: true, claims: { accountId: auth.chatgpt_account_id, plan: String(auth.chatgpt_plan_type ?? "free"), exp } };
  }

  /** Reads claims without checking (for per-account faults before authentication). */
  unverifiedAccountId(token: string): string | undefined {
    const payload = decodePayload(token);
    const auth = payload?.[AUTH_CLAIM] as Record<string, unknown> | undefined;
    return typeof auth?.chatgpt_account_id === "string" ? auth.chatgpt_account_id : undefined;
  }

  private mint(familyId: string, account: MockAccount): MintedTokens {
    const now = Math.floor(Date.now() / 1000);
    const ttl = this.accessTokenTtlSeconds();
    const authClaim = {
      chatgpt_account_id: account.accountId,
      chatgpt_plan_type: account.plan,
      chatgpt_user_id: account.userId,
      user_id: account.userId,
    };
    const idToken = this.sign({
      iss: this.issuer,
      aud: [this.clientId],
      sub: `auth0|${account.userId}`,
      email: account.email,
      email_verified: true,
      [AUTH_CLAIM]: authClaim,
      iat: now,
      auth_time: now,
      exp: now + 3600,
      jti: randomToken(12),
    });
    const accessToken = this.sign({
      iss: this.issuer,
      aud: ["https://api.openai.com/v1"],
      sub: `auth0|${account.userId}`,
      client_id: this.clientId,
      scp: SCOPE.split(" "),
      [AUTH_CLAIM]: authClaim,
      [PROFILE_CLAIM]: { email: account.email, email_verified: true },
      session_id: `authsess_${familyId}`,
      iat: now,
      nbf: now,
      exp: now + ttl,
      jti: randomToken(12),
    });
    const refreshToken = `rt_${randomToken(32)}`;
    this.refreshTokens.set(refreshToken, { familyId, used: false });
    return {
      id_token: idToken,
      access_token: accessToken,
      refresh_token: refreshToken,
      expires_in: ttl,
      token_type: "Bearer",
      scope: SCOPE,
    };
  }

  private familyOfAccessToken(token: string): string | undefined {
    const payload = this.verifySignature(token);
    const session = payload?.session_id;
    return typeof session === "string" && session.startsWith("authsess_") ? session.slice("authsess_".length) : undefined;
  }

  private sign(payload: Record<string, unknown>): string {
    const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "mock-upstream" }));
    const body = base64url(JSON.stringify(payload));
    const signature = createHmac("sha256", this.key).update(`${header}.${body}`).digest("base64url");
    return `${header}.${body}.${signature}`;
  }

  private verifySignature(token: string): Record<string, unknown> | null {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const expected = createHmac("sha256", this.key).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2]!, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return decodePayload(token);
  }
}

function decodePayload(token: string): Record<string, unknown> | null {
  const part = token.split(".")[1];
  if (!part) return null;
  try {
    const value = JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

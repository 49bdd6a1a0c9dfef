import { createHash, randomBytes } from "node:crypto";

export const DYNAMIC_CLIENT_ID = "dynamic_agent_client";
const PLAN_SCOPES = ["offline_access", "resource.invoke", "chatgpt.tokens.use.direct"] as const;
export const IDENTITY_SCOPES = ["openid", "profile", "email"] as const;
export const ALL_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...PLAN_SCOPES];
export const PLAN_USE_SCOPE = "chatgpt.tokens.use.direct";

/** What /v1/responses lets the account do: plus and pro may use their plan; free and an ineligible workspace may not. */
export const ELIGIBILITIES = ["plus", "pro", "free", "workspace_ineligible"] as const;
export type Eligibility = (typeof ELIGIBILITIES)[number];
export const WORKSPACES = ["personal", "team"] as const;
export type Workspace = (typeof WORKSPACES)[number];

export interface SiwcAccount {
  sub: string;
  email: string;
  name: string;
  eligibility: Eligibility;
}

export interface Registration {
  clientId: string;
  sub: string;
  workspace: Workspace;
  agentName: string;
  hosts: string[];
  /** What the person granted last (a reauthorization without consent grants it again). */
  grantedScopes: string[];
  createdAt: number;
}

/** An authorize request waiting for the person's decision on the consent page. */
export interface PendingAuthorization {
  id: string;
  /** The client_id as requested (dynamic_agent_client on a new registration). */
  clientId: string;
  newRegistration: boolean;
  redirectUri: string;
  state: string;
  nonce: string | undefined;
  codeChallenge: string;
  resource: string;
  scopes: string[];
  agentNameHint: string | undefined;
  hostId: string;
  loginHint: string | undefined;
  /** The log entry of this attempt, updated with the outcome. */
  log: AuthorizationLogEntry;
}

export interface AuthorizationLogEntry {
  at: number;
  clientId: string;
  newRegistration: boolean;
  prompt: string | null;
  forceReconsent: boolean;
  /** Whether the page asked for consent (new registration, prompt=consent or force_reconsent=true). */
  consentShown: boolean;
  /** False when a valid id_token_hint skipped the account selector (a redirect straight away). */
  pageShown: boolean;
  loginHint: string | null;
  idTokenHint: boolean;
  agentNameHint: string | null;
  hostId: string;
  scopes: string[];
  outcome: "pending" | "approved" | "identity_only" | "declined";
  /** The client id the callback carried (null when omitted). */
  callbackClientId: string | null;
}

interface IssuedCode {
  clientId: string;
  sub: string;
  hostId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  nonce: string | undefined;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

type FamilyEnd = "revoked" | "reused" | "disconnected";

export interface RefreshFamily {
  id: string;
  clientId: string;
  sub: string;
  hostId: string;
  resource: string;
  scopes: string[];
  /** Set when the family dies; its refresh and access tokens stop working. */
  ended: FamilyEnd | null;
  rotations: number;
}

interface RefreshRecord {
  familyId: string;
  used: boolean;
  expiresAt: number;
}

export function randomId(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/** Stable per email, so a person signing in twice is the same `sub`. */
function subFor(email: string): string {
  return `user-${createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 24)}`;
}

export const DEFAULT_SIWC_EMAIL = "demo@example.com";

/** The SIWC side of the mock's identity provider: people, registrations, codes and refresh families. */
export class SiwcState {
  readonly accounts = new Map<string, SiwcAccount>();
  readonly registrations = new Map<string, Registration>();
  readonly pending = new Map<string, PendingAuthorization>();
  readonly codes = new Map<string, IssuedCode>();
  readonly families = new Map<string, RefreshFamily>();
  readonly refreshTokens = new Map<string, RefreshRecord>();
  /** Access token jti -> family id. */
  readonly accessTokens = new Map<string, string>();
  /** Successful /v1/responses per `${clientId} ${hostId}`. */
  readonly usage = new Map<string, number>();
  readonly authorizations: AuthorizationLogEntry[] = [];
  /** The injectable clock: added to Date.now(). */
  clockOffsetMs = 0;

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** The person with this email, created on first use (plus, named after the email). */
  account(email: string, changes: Partial<Pick<SiwcAccount, "name" | "eligibility">> = {}): SiwcAccount {
    const sub = subFor(email);
    const existing = this.accounts.get(sub);
    const account: SiwcAccount = existing ?? { sub, email, name: nameFromEmail(email), eligibility: "plus" };
    if (changes.name) account.name = changes.name;
    if (changes.eligibility) account.eligibility = changes.eligibility;
    this.accounts.set(sub, account);
    return account;
  }

  register(sub: string, workspace: Workspace, agentName: string, hostId: string): Registration {
    const registration: Registration = {
      clientId: `oaiapp_${randomBytes(12).toString("hex")}`,
      sub,
      workspace,
      agentName,
      hosts: [hostId],
      grantedScopes: [],
      createdAt: this.now(),
    };
    this.registrations.set(registration.clientId, registration);
    return registration;
  }

  startFamily(code: IssuedCode): RefreshFamily {
    const family: RefreshFamily = {
      id: randomId(9),
      clientId: code.clientId,
      sub: code.sub,
      hostId: code.hostId,
      resource: code.resource,
      scopes: code.scopes,
      ended: null,
      rotations: 0,
    };
    this.families.set(family.id, family);
    return family;
  }

  newRefreshToken(familyId: string, ttlSeconds: number): string {
    const token = `rt_${randomId(32)}`;
    this.refreshTokens.set(token, { familyId, used: false, expiresAt: this.now() + ttlSeconds * 1000 });
    return token;
  }

  refreshRecord(token: string): { record: RefreshRecord; family: RefreshFamily } | undefined {
    const record = this.refreshTokens.get(token);
    const family = record ? this.families.get(record.familyId) : undefined;
    return record && family ? { record, family } : undefined;
  }

  endFamily(family: RefreshFamily, end: FamilyEnd): void {
    if (family.ended === null) family.ended = end;
  }

  /** "Disconnect the app in ChatGPT settings": every family of the client dies, and nobody is told. */
  disconnect(clientId: string): number {
    let ended = 0;
    for (const family of this.families.values()) {
      if (family.clientId === clientId && family.ended === null) {
        this.endFamily(family, "disconnected");
        ended += 1;
      }
    }
    return ended;
  }

  usageKey(clientId: string, hostId: string): string {
    return `${clientId} ${hostId}`;
  }

  clear(): void {
    this.accounts.clear();
    this.registrations.clear();
    this.pending.clear();
    this.codes.clear();
    this.families.clear();
    this.refreshTokens.clear();
    this.accessTokens.clear();
    this.usage.clear();
    this.authorizations.length = 0;
    this.clockOffsetMs = 0;
  }
}

function nameFromEmail(email: string): string {
  const local = email.split("@")[0] ?? email;
  return local.charAt(0).toUpperCase() + local.slice(1) + " User";
}

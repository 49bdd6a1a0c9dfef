import { createHash, randomBytes, randomInt } from "node:crypto";
import { randomToken } from "./tokens";
import type { MockAccount } from "./types";

type DeviceState = "pending" | "approved" | "denied" | "expired";

interface DeviceRecord {
  deviceAuthId: string;
  userCode: string;
  state: DeviceState;
  expiresAt: number;
  lastPollAt?: number;
  /** Set once approved: what the poll hands out (stable across repeated polls). */
  grant?: { authorizationCode: string; codeChallenge: string; codeVerifier: string };
}

interface AuthorizationCodeRecord {
  account: MockAccount;
  codeChallenge: string;
  expiresAt: number;
  used: boolean;
}

const LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"; // no I or O: easy to read aloud
const AUTHORIZATION_CODE_TTL_MS = 10 * 60_000;

/** "abcd1234", "ABCD-1234", " abcd - 1234 " all become "ABCD-1234". */
function normalizeUserCode(input: string): string {
  const compact = input.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return compact.length > 4 ? `${compact.slice(0, 4)}-${compact.slice(4)}` : compact;
}

function newUserCode(): string {
  let letters = "";
  for (let i = 0; i < 4; i++) letters += LETTERS[randomInt(LETTERS.length)];
  return `${letters}-${String(randomInt(10_000)).padStart(4, "0")}`;
}

function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

type PollResult =
  | { kind: "unknown" }
  | { kind: "pending" }
  | { kind: "too_fast" }
  | { kind: "denied" }
  | { kind: "expired" }
  | { kind: "approved"; authorizationCode: string; codeChallenge: string; codeVerifier: string };

type ExchangeResult = { ok: true; account: MockAccount } | { ok: false; reason: string };

/** The provider's device-authorization state: device codes, approvals and one-time authorization codes. */
export class DeviceFlow {
  private readonly byId = new Map<string, DeviceRecord>();
  private readonly byUserCode = new Map<string, DeviceRecord>();
  private readonly authorizationCodes = new Map<string, AuthorizationCodeRecord>();
  private readonly approvedAccounts = new Map<string, MockAccount>();

  issue(ttlSeconds: number, now = Date.now()): { deviceAuthId: string; userCode: string } {
    let userCode = newUserCode();
    while (this.byUserCode.has(userCode)) userCode = newUserCode();
    const record: DeviceRecord = {
      deviceAuthId: `deviceauth_${randomBytes(16).toString("hex")}`,
      userCode,
      state: "pending",
      expiresAt: now + ttlSeconds * 1000,
    };
    this.byId.set(record.deviceAuthId, record);
    this.byUserCode.set(userCode, record);
    return { deviceAuthId: record.deviceAuthId, userCode };
  }

  /** The code issued last that still waits for approval (time-based expiry applied), if any. */
  newestPendingCode(now = Date.now()): string | undefined {
    for (const record of [...this.byId.values()].reverse()) {
      this.applyExpiry(record, now);
      if (record.state === "pending") return record.userCode;
    }
    return undefined;
  }

  /** State of a user code as the approval page sees it (time-based expiry applied). */
  stateOf(userCode: string, now = Date.now()): DeviceState | "unknown" {
    const record = this.byUserCode.get(normalizeUserCode(userCode));
    if (!record) return "unknown";
    this.applyExpiry(record, now);
    return record.state;
  }

  approve(userCode: string, account: MockAccount, now = Date.now()): boolean {
    const record = this.byUserCode.get(normalizeUserCode(userCode));
    if (!record) return false;
    this.applyExpiry(record, now);
    if (record.state !== "pending") return false;
    record.state = "approved";
    this.approvedAccounts.set(record.deviceAuthId, { ...account });
    return true;
  }

  deny(userCode: string, now = Date.now()): boolean {
    const record = this.byUserCode.get(normalizeUserCode(userCode));
    if (!record) return false;
    this.applyExpiry(record, now);
    if (record.state !== "pending") return false;
    record.state = "denied";
    return true;
  }

  expire(userCode: string): boolean {
    const record = this.byUserCode.get(normalizeUserCode(userCode));
    if (!record) return false;
    record.state = "expired";
    return true;
  }

  poll(
    deviceAuthId: string,
    userCode: string,
    options: { now?: number; minIntervalMs?: number } = {},
  ): PollResult {
    const now = options.now ?? Date.now();
    const record = this.byId.get(deviceAuthId);
    if (!record || record.userCode !== normalizeUserCode(userCode)) return { kind: "unknown" };
    this.applyExpiry(record, now);
    const previousPoll = record.lastPollAt;
    record.lastPollAt = now;
    if (record.state === "expired") return { kind: "expired" };
    if (record.state === "denied") return { kind: "denied" };
    if (options.minIntervalMs !== undefined && previousPoll !== undefined && now - previousPoll < options.minIntervalMs) {
      return { kind: "too_fast" };
    }
    if (record.state === "pending") return { kind: "pending" };
    record.grant ??= this.createGrant(record, now);
    return { kind: "approved", ...record.grant };
  }

  /** One-time use; the verifier must hash to the challenge handed out with the code. */
  exchange(authorizationCode: string, codeVerifier: string, now = Date.now()): ExchangeResult {
    const record = this.authorizationCodes.get(authorizationCode);
    if (!record) return { ok: false, reason: "Invalid authorization code." };
    if (record.used) return { ok: false, reason: "Authorization code has already been used." };
    if (record.expiresAt <= now) return { ok: false, reason: "Authorization code has expired." };
    if (pkceChallenge(codeVerifier) !== record.codeChallenge) {
      return { ok: false, reason: "Invalid code_verifier: it does not match the code_challenge." };
    }
    record.used = true;
    return { ok: true, account: record.account };
  }

  /** Forget device codes and authorization codes (logins already made stay valid). */
  clear(): void {
    this.byId.clear();
    this.byUserCode.clear();
    this.authorizationCodes.clear();
    this.approvedAccounts.clear();
  }

  private createGrant(record: DeviceRecord, now: number) {
    const codeVerifier = randomToken(64);
    const codeChallenge = pkceChallenge(codeVerifier);
    const authorizationCode = `ac_${randomToken(32)}`;
    this.authorizationCodes.set(authorizationCode, {
      account: this.approvedAccounts.get(record.deviceAuthId)!,
      codeChallenge,
      expiresAt: now + AUTHORIZATION_CODE_TTL_MS,
      used: false,
    });
    return { authorizationCode, codeChallenge, codeVerifier };
  }

  private applyExpiry(record: DeviceRecord, now: number): void {
    // An approved code whose grant was already handed out keeps working until then exchanged.
    if (record.state === "pending" && now >= record.expiresAt) record.state = "expired";
    if (record.state === "approved" && !record.grant && now >= record.expiresAt) record.state = "expired";
  }
}

import "server-only";
/**
 * Who holds a live session, on any instance sharing the store: one sealed map of logins, each with
 * its account, the claim that holds it and until when. The caps (`realtime_busy`) count it, so
 * they hold across instances; an instance that dies stops renewing its claims and they lapse.
 */
import { randomBytes } from "node:crypto";
import { HOLDERS_KEY } from "./keys";
import { updateSealed, type SealedStore } from "./sealed-store";

/** How long a claim lasts without being renewed (the hosting instance renews it every heartbeat). */
export const CLAIM_TTL_MS = 30_000;
/** The map's own lifetime in the store, renewed by every change (each claim carries its own end). */
const HOLDERS_TTL_MS = 60 * 60_000;

interface Claim {
  account: string;
  claim: string;
  until: number;
}
type Holders = Record<string, Claim>;

interface Caps {
  maxSessions: number;
  maxSessionsPerAccount: number;
}

type Verdict = "admitted" | "account_busy" | "server_busy";

function current(value: unknown, now: number): Holders {
  const holders: Holders = {};
  if (typeof value !== "object" || value === null) return holders;
  for (const [loginId, claim] of Object.entries(value as Holders)) {
    if (typeof claim?.until === "number" && claim.until > now) holders[loginId] = claim;
  }
  return holders;
}

export function createHolders(shared: SealedStore, now: () => number) {
  return {
    /**
     * Claims a live session for `loginId` when the caps allow (its own earlier claim does not count
     * against it, and is replaced). Returns the verdict and, when admitted, the claim to renew and release.
     */
    async claim(loginId: string, accountId: string, caps: Caps, holdMs: number): Promise<{ verdict: Verdict; claim?: string }> {
      const claim = randomBytes(12).toString("base64url");
      let verdict: Verdict = "admitted";
      await updateSealed(shared, HOLDERS_KEY, HOLDERS_TTL_MS, (value) => {
        const holders = current(value, now());
        delete holders[loginId];
        const sameAccount = Object.values(holders).filter((held) => held.account === accountId).length;
        if (sameAccount >= caps.maxSessionsPerAccount) verdict = "account_busy";
        else if (Object.keys(holders).length >= caps.maxSessions) verdict = "server_busy";
        else {
          verdict = "admitted";
          holders[loginId] = { account: accountId, claim, until: now() + holdMs };
        }
        return holders;
      });
      return verdict === "admitted" ? { verdict, claim } : { verdict };
    },
    /** Keeps the claim for another CLAIM_TTL_MS; false when it is no longer there (lapsed or replaced). */
    async renew(loginId: string, claim: string): Promise<boolean> {
      let kept = false;
      await updateSealed(shared, HOLDERS_KEY, HOLDERS_TTL_MS, (value) => {
        const holders = current(value, now());
        kept = holders[loginId]?.claim === claim;
        if (kept) holders[loginId] = { ...holders[loginId]!, until: now() + CLAIM_TTL_MS };
        return holders;
      });
      return kept;
    },
    /** Holds `claim` for the login again, caps or not (a session taken over from another instance keeps its place). */
    async restore(loginId: string, accountId: string, claim: string): Promise<void> {
      await updateSealed(shared, HOLDERS_KEY, HOLDERS_TTL_MS, (value) => {
        const holders = current(value, now());
        holders[loginId] = { account: accountId, claim, until: now() + CLAIM_TTL_MS };
        return holders;
      });
    },
    /** Gives the claim up (a newer claim of the same login stays). */
    async release(loginId: string, claim: string): Promise<void> {
      await updateSealed(shared, HOLDERS_KEY, HOLDERS_TTL_MS, (value) => {
        const holders = current(value, now());
        if (holders[loginId]?.claim === claim) delete holders[loginId];
        return holders;
      });
    },
  };
}

export type SessionHolders = ReturnType<typeof createHolders>;

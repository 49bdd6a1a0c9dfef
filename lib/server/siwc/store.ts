import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import type { KeyValueStore } from "@/lib/stores/types";
import { toBase64Url } from "../http/encoding";
import type { Sealer } from "../session/seal";

/**
 * What SIWC keeps in the session store besides sessions. This app is for one person on their own
 * machine (a loopback callback): a returning person is recognised by their browser (the registration
 * it last signed in with), else the server's last-used registration is offered; a second person on
 * the same server starts a new registration (`?new=1`). Everything but the host id and the pointer is sealed like the session records.
 *
 * - `lwc:siwc:host-id`: the generated `ext_agent_host_id` (kept for good, made before the first sign-in).
 * - `lwc:siwc:attempt:<hash of state>`: one start's state, nonce and PKCE verifier (10 minutes, used once).
 * - `lwc:siwc:reg:<hash of issuer and client id>`: a registration (client id, then its verified sub and email).
 * - `lwc:siwc:browser:<hash of issuer and browser id>`: which registration a browser signed in with last.
 * - `lwc:siwc:last:<hash of issuer>`: which registration this server used last (for a browser it has not seen).
 * - `lwc:siwc:notice:<hash of issuer and sub>`: the account has seen the one-time plan notice.
 */
const KEY = "lwc:siwc:";
/** "Kept": the store needs a TTL, so ten years, renewed whenever a registration is used. */
const KEPT_MS = 10 * 365 * 24 * 60 * 60_000;
/** How long a started sign-in may take to come back to the callback. */
const ATTEMPT_TTL_MS = 10 * 60_000;

const hashed = (...parts: string[]) => toBase64Url(createHash("sha256").update(parts.join("\n")).digest());

const attemptSchema = z.object({
  /** The browser's binding (the attempt cookie's id): only that browser may finish the attempt. */
  binding: z.string(),
  verifier: z.string(),
  nonce: z.string(),
  redirectUri: z.string(),
  /** The issued client id of a returning registration; null for a new registration. */
  clientId: z.string().nullable(),
  createdAt: z.number(),
});
export type Attempt = z.infer<typeof attemptSchema>;

const registrationSchema = z.object({
  issuer: z.string(),
  clientId: z.string(),
  /** The ID token's `sub`, once a sign-in with this client id was verified; never changes after. */
  subject: z.string().optional(),
  email: z.string().optional(),
  savedAt: z.number(),
});
type Registration = z.infer<typeof registrationSchema>;

export function createSiwcStore(store: KeyValueStore, sealer: Sealer, now: () => number) {
  async function loadSealed<T>(key: string, schema: z.ZodType<T>): Promise<{ value: T; sealed: string } | null> {
    const sealed = await store.get(key);
    if (sealed === null) return null;
    const parsed = schema.safeParse(await sealer.unseal(sealed));
    return parsed.success ? { value: parsed.data, sealed } : null;
  }
  const attemptKey = (state: string) => `${KEY}attempt:${hashed(state)}`;
  const registrationKey = (issuer: string, clientId: string) => `${KEY}reg:${hashed(issuer, clientId)}`;
  const lastKey = (issuer: string) => `${KEY}last:${hashed(issuer)}`;
  const browserKey = (issuer: string, browserId: string) => `${KEY}browser:${hashed(issuer, browserId)}`;
  const noticeKey = (issuer: string, subject: string) => `${KEY}notice:${hashed(issuer, subject)}`;

  return {
    /** The server's generated host id: made once (the first writer wins across instances), then kept. */
    async hostId(): Promise<string> {
      const key = `${KEY}host-id`;
      const existing = await store.get(key);
      if (existing !== null) return existing;
      await store.setIfAbsent(key, `urn:uuid:${crypto.randomUUID()}`, KEPT_MS);
      const kept = await store.get(key);
      if (kept === null) throw new Error("the SIWC host id could not be kept in the store");
      return kept;
    },

    async saveAttempt(state: string, attempt: Attempt): Promise<void> {
      await store.set(attemptKey(state), await sealer.seal(attempt, ATTEMPT_TTL_MS / 1000), ATTEMPT_TTL_MS);
    },
    /** The attempt as stored (for the binding check), with the token `takeAttempt` needs. */
    async peekAttempt(state: string): Promise<{ value: Attempt; sealed: string } | null> {
      const found = await loadSealed(attemptKey(state), attemptSchema);
      return found && now() - found.value.createdAt < ATTEMPT_TTL_MS ? found : null;
    },
    /** Uses the attempt up: true for exactly one caller, so a state works once. */
    takeAttempt(state: string, sealed: string): Promise<boolean> {
      return store.deleteIfEquals(attemptKey(state), sealed);
    },

    async registration(issuer: string, clientId: string): Promise<Registration | null> {
      return (await loadSealed(registrationKey(issuer, clientId), registrationSchema))?.value ?? null;
    },
    /** This server's last-used registration for the issuer, if it is still kept. */
    async lastRegistration(issuer: string): Promise<Registration | null> {
      const clientId = await store.get(lastKey(issuer));
      return clientId === null ? null : this.registration(issuer, clientId);
    },
    /** Saves a registration and makes it this server's last-used one. */
    async saveRegistration(registration: Registration): Promise<void> {
      const { issuer, clientId } = registration;
      await store.set(registrationKey(issuer, clientId), await sealer.seal(registration, KEPT_MS / 1000), KEPT_MS);
      await store.set(lastKey(issuer), clientId, KEPT_MS);
    },

    /** The registration this browser (its binding id) last signed in with, if it is still kept. */
    async browserRegistration(issuer: string, browserId: string): Promise<Registration | null> {
      const clientId = await store.get(browserKey(issuer, browserId));
      return clientId === null ? null : this.registration(issuer, clientId);
    },
    async saveBrowserRegistration(issuer: string, browserId: string, clientId: string): Promise<void> {
      await store.set(browserKey(issuer, browserId), clientId, KEPT_MS);
    },

    async noticeSeen(issuer: string, subject: string): Promise<boolean> {
      return (await store.get(noticeKey(issuer, subject))) !== null;
    },
    async markNoticeSeen(issuer: string, subject: string): Promise<void> {
      await store.set(noticeKey(issuer, subject), "1", KEPT_MS);
    },
  };
}

import "server-only";
import { sealData, unsealData } from "iron-session";
import { randomId } from "../http/encoding";
import { LOG_PREFIX, type Logger } from "@/lib/logger";

/** iron-session's own minimum, and ours for the cookie HMAC key. */
export const MIN_SECRET_LENGTH = 32;

let warnedAboutEphemeralSecret = false;

/**
 * Checks the configured secrets (first = current). None configured: one random secret for this
 * process, with a single warning per process, so sessions do not survive a restart (the behaviour
 * the contract, docs/api.md, gives without LWC_SECRET). A too-short secret is a startup error that names its position only.
 */
export function resolveSecrets(secrets: readonly string[] | undefined, logger: Logger): string[] {
  const given = (secrets ?? []).map((secret) => secret.trim()).filter((secret) => secret !== "");
  if (given.length === 0) {
    if (!warnedAboutEphemeralSecret) {
      warnedAboutEphemeralSecret = true;
      logger.warn(
        `${LOG_PREFIX} LWC_SECRET is not set: using an ephemeral secret. Sessions will not survive a restart ` +
          `and are not shared between instances. Set LWC_SECRET to 32 or more random characters.`,
      );
    }
    return [randomId(32)];
  }
  given.forEach((secret, index) => {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `LWC_SECRET: secret #${index + 1} is ${secret.length} characters long; every secret needs at least ` +
          `${MIN_SECRET_LENGTH} characters`,
      );
    }
  });
  return given;
}

export interface Sealer {
  /** Encrypts and authenticates `data` with the first secret; the seal expires after `ttlSeconds`. */
  seal(data: unknown, ttlSeconds: number): Promise<string>;
  /**
   * The data, or null when no configured secret opens the seal (tampered, foreign, expired). Deeply
   * frozen: a seal opened before gives the same value again, so copy it before changing anything.
   */
  unseal(sealed: string): Promise<unknown>;
}

/** The fields of an iron seal (`Fe26.2*<id>*…*<expiration>*…`); iron-session appends `~<version>`. */
function sealParts(sealed: string): { passwordId: string; expiresAt: number } | null {
  const parts = sealed.split("~")[0]?.split("*") ?? [];
  if (parts.length !== 8) return null;
  return { passwordId: parts[1] || "default", expiresAt: Number(parts[5]) || Number.POSITIVE_INFINITY };
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** How many opened seals to remember: about one per active session of this instance. */
const OPENED_SEALS_CACHE_SIZE = 1000;

/**
 * Seals with the first secret under the fixed id "1" and opens with every secret in turn (each as
 * the seal's own id), so adding or dropping old secrets never depends on their position in the list.
 */
export function createSealer(secrets: readonly string[]): Sealer {
  const [current] = secrets;
  if (current === undefined) throw new Error("createSealer needs at least one secret");
  // Opening a seal derives two keys (PBKDF2) and costs about a millisecond on every request of a
  // session. A seal is immutable and authenticated, so what it opened to once stays true until the
  // seal's own expiry: remember recent ones (insertion-ordered Map as a small LRU). The value is
  // frozen once and handed out as is (the session store validates each such value once).
  const opened = new Map<string, { data: unknown; expiresAt: number }>();
  const remember = (sealed: string, data: unknown, expiresAt: number) => {
    opened.delete(sealed);
    opened.set(sealed, { data, expiresAt });
    if (opened.size > OPENED_SEALS_CACHE_SIZE) opened.delete(opened.keys().next().value as string);
  };

  return {
    seal(data, ttlSeconds) {
      return sealData(data, { password: { 1: current }, ttl: Math.max(1, Math.ceil(ttlSeconds)) });
    },
    async unseal(sealed) {
      const known = opened.get(sealed);
      if (known && known.expiresAt > Date.now()) {
        remember(sealed, known.data, known.expiresAt);
        return known.data;
      }
      opened.delete(sealed);
      const seal = sealParts(sealed);
      if (seal === null) return null;
      for (const secret of secrets) {
        let failed = false;
        const data = await unsealData<unknown>(sealed, {
          password: { [seal.passwordId]: secret },
          onUnsealError: () => {
            failed = true;
          },
        });
        if (!failed) {
          remember(sealed, deepFreeze(data), seal.expiresAt);
          return data;
        }
      }
      return null;
    },
  };
}

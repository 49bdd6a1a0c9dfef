import "server-only";
/**
 * Sealing the history at rest. Every piece of a person's content (message parts and metadata,
 * titles, instructions, share snapshots, the provider account id) is stored as AES-256-GCM
 * ciphertext under a key derived from the server's secret (LWC_SECRET), so a dump of the database
 * or a copy of the data folder shows none of it.
 *
 * Rotation works as for sessions: the first secret seals, every secret opens (`new,old`). Each
 * seal names its key by a 4-byte id, so opening never depends on the secrets' order. The row a
 * seal belongs to is bound in as associated data (`context`): a seal copied into another row, or
 * another account's, does not open.
 *
 * Why not iron-session's seals, as the session records use: each of those derives its keys with
 * PBKDF2 (about a millisecond), and a first sync opens tens of thousands of messages. Here the
 * keys are derived once per secret (HKDF) and a seal costs microseconds.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";

const FORMAT = 1;
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES;
const SALT = "login-with-chatgpt chat history";

interface ContentKey {
  id: Buffer;
  key: Buffer;
  /** Keys the account lookup HMAC (lib/history/account-key.ts). */
  accountKey: Buffer;
}

export interface ContentSealer {
  /** `value` as JSON, encrypted with the newest secret's key and bound to `context`. */
  seal(value: unknown, context: string): Uint8Array;
  /** What `seal` was given, or undefined when no configured secret opens it (or it was bound elsewhere). */
  open(sealed: Uint8Array, context: string): unknown;
  /** True when `sealed` was made with the newest secret (else `npm run db:reseal` has work to do). */
  isCurrent(sealed: Uint8Array): boolean;
  /** The account's lookup key under every configured secret, newest first (base64url HMAC-SHA256). */
  accountKeys(accountId: string): string[];
}

function deriveKey(secret: string): ContentKey {
  const derive = (info: string) => Buffer.from(hkdfSync("sha256", secret, SALT, info, 32));
  const key = derive("content sealing v1");
  return { key, id: createHash("sha256").update(key).digest().subarray(0, KEY_ID_BYTES), accountKey: derive("account key v1") };
}

export function createContentSealer(secrets: readonly string[]): ContentSealer {
  if (secrets.length === 0) throw new Error("createContentSealer needs at least one secret");
  const keys = secrets.map(deriveKey);
  const current = keys[0]!;

  return {
    seal(value, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current.key, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.of(FORMAT), current.id, iv, body, cipher.getAuthTag()]);
    },
    open(sealed, context) {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      if (bytes.length < HEADER_BYTES + TAG_BYTES || bytes[0] !== FORMAT) return undefined;
      const id = bytes.subarray(1, 1 + KEY_ID_BYTES);
      const found = keys.find((candidate) => candidate.id.equals(id));
      if (!found) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", found.key, bytes.subarray(1 + KEY_ID_BYTES, HEADER_BYTES));
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const text = Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
        return JSON.parse(text.toString("utf8")) as unknown;
      } catch {
        return undefined;
      }
    },
    isCurrent(sealed) {
      return sealed.length > HEADER_BYTES && Buffer.from(sealed.buffer, sealed.byteOffset + 1, KEY_ID_BYTES).equals(current.id);
    },
    accountKeys(accountId) {
      return keys.map(({ accountKey }) => createHmac("sha256", accountKey).update(accountId, "utf8").digest("base64url"));
    },
  };
}

/** The associated data binding a seal to its row: kind, account row and the row's own ids. */
export function sealContext(kind: "account" | "instructions" | "title" | "message" | "share", accountRowId: number, ...ids: string[]): string {
  return [kind, String(accountRowId), ...ids].join("\u0000");
}

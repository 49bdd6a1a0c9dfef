import "server-only";
import { MIN_SECRET_LENGTH } from "@/lib/server/session/seal";
import type { CheckResult } from "./types";

/** Fewer different characters than this in 32+ is a pattern, not randomness (hex has 16, base64 64). */
const MIN_DISTINCT_CHARACTERS = 12;
/** Words people put in a secret they typed; a generated one holds none of them. */
const GUESSABLE_WORDS = /secret|passw|changeme|example|sample|default|placeholder|letmein|qwerty|test|demo/i;

const why = (secret: string): string | undefined => {
  if (new Set(secret).size < MIN_DISTINCT_CHARACTERS) return `only ${new Set(secret).size} different characters`;
  if (GUESSABLE_WORDS.test(secret)) return "a common word in it";
  return undefined;
};

/**
 * LWC_SECRET (already split at commas): set, long enough, random-looking. Never shows a value.
 * `required`: unset is a failure (production: the server's `ephemeral_secret`), else a warning.
 */
export function checkSecret(secrets: readonly string[], required: boolean): CheckResult {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "secret", status, detail });
  if (secrets.length === 0) {
    return result(
      required ? "fail" : "warn",
      "LWC_SECRET is not set: sessions end with every restart and are not shared between instances. " +
        `Set it to ${MIN_SECRET_LENGTH}+ random characters (openssl rand -base64 48).`,
    );
  }
  for (const [index, secret] of secrets.entries()) {
    if (secret.length < MIN_SECRET_LENGTH) {
      return result("fail", `LWC_SECRET: secret #${index + 1} is ${secret.length} characters; each needs ${MIN_SECRET_LENGTH}+ (the server does not start).`);
    }
    const weakness = why(secret);
    if (weakness) return result("fail", `LWC_SECRET: secret #${index + 1} looks guessable (${weakness}); use openssl rand -base64 48.`);
  }
  const count = secrets.length === 1 ? "1 secret" : `${secrets.length} secrets (the first signs and seals)`;
  return result("ok", `${count}, each ${MIN_SECRET_LENGTH}+ random-looking characters.`);
}

/**
 * The demo's LWC_SECRET. It seals the chats the server keeps (docs/history.md#sealed-at-rest), so a
 * fresh one each run would leave the rows of the runs before unreadable: the demo makes one on its
 * first run and keeps it beside the embedded database, in `<LWC_DATA_DIR>/demo-secret` (mode 0600),
 * and later runs read it back. An LWC_SECRET of your own wins and nothing is written.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The same default as lib/history/config.ts's DEFAULT_DATA_DIR (which the demo script cannot import: it is server-only). */
export const DEMO_DEFAULT_DATA_DIR = ".data";
const SECRET_FILE = "demo-secret";

type Env = Record<string, string | undefined>;

/** The secret the demo runs with, and where it came from (for the banner). */
export function demoSecret(env: Env, appFolder = process.cwd()): { secret: string; from: "env" | "kept" | "new"; path?: string } {
  if (env.LWC_SECRET?.trim()) return { secret: env.LWC_SECRET, from: "env" };
  const dataDir = resolve(appFolder, env.LWC_DATA_DIR?.trim() || DEMO_DEFAULT_DATA_DIR);
  const path = join(dataDir, SECRET_FILE);
  try {
    const kept = readFileSync(path, "utf8").trim();
    if (kept.length >= 32) {
      // Only its owner may read it, whatever a copy or an editor left.
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return { secret: kept, from: "kept", path };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { secret, from: "new", path };
}

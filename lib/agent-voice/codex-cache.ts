import { homedir } from "node:os";
import { join } from "node:path";
import { CLIENT_VERSION } from "@/lib/upstream/config";

type Env = Record<string, string | undefined>;

/**
 * Where scripts/ensure-codex.sh installs the pinned codex (CLIENT_VERSION): LWC_CODEX_CACHE_DIR,
 * else `${XDG_CACHE_HOME:-$HOME/.cache}/login-with-chatgpt/codex-<version>`, by the script's own rule.
 */
function codexCacheDir(env: Env = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return env.LWC_CODEX_CACHE_DIR || join(cacheHome, "login-with-chatgpt", `codex-${CLIENT_VERSION}`);
}

/** The codex executable inside that folder (it may not exist yet). */
export function cachedCodexPath(env: Env = process.env): string {
  return join(codexCacheDir(env), "node_modules", ".bin", "codex");
}

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The codex executable the e2e app runs for agent voice: $LWC_CODEX_COMMAND, else the cache folder
 * scripts/ensure-codex.sh installs into; undefined when neither exists (agent voice specs skip).
 */
const cached = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "login-with-chatgpt", "codex-0.169.0", "node_modules", ".bin", "codex");
export const CODEX_FOR_E2E: string | undefined = process.env.LWC_CODEX_COMMAND || (existsSync(cached) ? cached : undefined);

import { existsSync } from "node:fs";
import { cachedCodexPath } from "../../lib/agent-voice/codex-cache";

/**
 * The codex executable the e2e app runs for agent voice: $LWC_CODEX_COMMAND, else the cache folder
 * scripts/ensure-codex.sh installs into; undefined when neither exists (agent voice specs skip).
 */
const cached = cachedCodexPath();
export const CODEX_FOR_E2E: string | undefined = process.env.LWC_CODEX_COMMAND || (existsSync(cached) ? cached : undefined);

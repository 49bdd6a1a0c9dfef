/**
 * `npm run agent-voice:snapshot`: makes the Vercel Sandbox snapshot agent voice's Vercel backend
 * starts every sandbox from (docs/agent-voice.md#vercel-sandbox-backend): the
 * pinned codex (lib/upstream/client-version.json) installed with npm, and the session relay. It
 * prints the line to put in the deploy's environment, `LWC_VERCEL_SANDBOX_SNAPSHOT=snap_…`.
 * Run it again after the pin changes; each run makes a new snapshot.
 *
 *   npm run agent-voice:snapshot [-- --codex-path <absolute path in the VM>]
 *
 * Credentials as the app's: VERCEL_TOKEN with VERCEL_TEAM_ID and VERCEL_PROJECT_ID, or Vercel's OIDC
 * token (VERCEL_OIDC_TOKEN, from `vercel env pull`); LWC_VERCEL_SANDBOX_API_URL for another API.
 * `--codex-path` links a codex the image already has instead of installing one (the local fake).
 * Exit code 0 on success, 1 on a failure, 2 on a usage error.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import nextEnv from "@next/env";
import { makeCodexSnapshot } from "../lib/agent-voice/sandbox/vercel/snapshot";
import { vercelSandboxApi } from "../lib/agent-voice/vercel-sandbox-api";
import { parseEnv } from "../lib/env-options";
import { CLIENT_VERSION } from "../lib/upstream/config";

let codexPath: string | undefined;
try {
  codexPath = parseArgs({ options: { "codex-path": { type: "string" } }, strict: true }).values["codex-path"];
  if (codexPath !== undefined && !codexPath.startsWith("/")) throw new Error("--codex-path must be an absolute path");
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nUsage: npm run agent-voice:snapshot [-- --codex-path <absolute path in the VM>]\n`);
  process.exit(2);
}

nextEnv.loadEnvConfig(join(import.meta.dirname, ".."), false, { info() {}, error() {} });
try {
  const env = parseEnv(process.env);
  const api = vercelSandboxApi(env.LWC_VERCEL_SANDBOX_API_URL, process.env);
  const made = await makeCodexSnapshot(api, {
    codexVersion: CLIENT_VERSION,
    codex: codexPath === undefined ? { install: "npm" } : { linkTo: codexPath },
    log: (line) => process.stderr.write(`agent-voice:snapshot: ${line}\n`),
  });
  process.stderr.write(`agent-voice:snapshot: made ${made.snapshotId} (${(made.sizeBytes / 1024 / 1024).toFixed(1)} MB) with codex ${CLIENT_VERSION}\n`);
  process.stdout.write(`LWC_VERCEL_SANDBOX_SNAPSHOT=${made.snapshotId}\n`);
} catch (error) {
  const detail = error instanceof Error && "detail" in error ? ` (${String(error.detail)})` : "";
  process.stderr.write(`agent-voice:snapshot: ${error instanceof Error ? error.message : String(error)}${detail}\n`);
  process.exit(1);
}

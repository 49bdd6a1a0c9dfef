/**
 * The app's own provider handler (lib/provider-app.ts: every option from the environment, as
 * `next start` builds it), served by a Node process of its own, so a test can give the server an
 * environment (secrets, markers) that shows in its /proc/<pid>/environ, and end it by pid.
 * Run: node --conditions=react-server --import tsx tests/codex-real/app-process.ts [--load-env-files]
 * (the react-server condition makes `import "server-only"` the no-op it is in Next's server bundle).
 * With --load-env-files it first reads the working folder's .env files as `next start` does
 * (@next/env, production mode), so the app knows which it read. Prints `listening <port>` once it serves.
 */
import nextEnv from "@next/env";

if (process.argv.includes("--load-env-files")) nextEnv.loadEnvConfig(process.cwd(), false, { info() {}, error() {} });
const { providerHandler } = await import("@/lib/provider-app");
const { serveHandler } = await import("@/test-support/serve-handler");

const served = await serveHandler(providerHandler.handler);
process.stdout.write(`listening ${served.port}\n`);

/**
 * The app's own provider handler (lib/provider-app.ts: every option from the environment, as
 * `next start` builds it), served by a Node process of its own, so a test can give the server an
 * environment (secrets, markers) that shows in its /proc/<pid>/environ, and end it by pid.
 * Run: node --conditions=react-server --import tsx tests/codex-real/app-process.ts
 * (the react-server condition makes `import "server-only"` the no-op it is in Next's server bundle).
 * Prints `listening <port>` once it serves.
 */
import { providerHandler } from "@/lib/provider-app";
import { serveHandler } from "@/test-support/serve-handler";

const served = await serveHandler(providerHandler.handler);
process.stdout.write(`listening ${served.port}\n`);

/**
 * The provider handler with agent voice on, served by a real Node server process of its own: for
 * tests that kill the server (SIGKILL) or signal it, which they cannot do to their own process.
 * Run with `node --conditions=react-server --import tsx test-support/handler-process.ts`. Environment: LWC_SECRET,
 * LWC_ISSUER_URL, LWC_CODEX_BASE_URL, LWC_CODEX_COMMAND. Prints `listening <port>` once it serves.
 */
import { createProviderHandler } from "@/lib/server/handler";
import { NODE_MEMORY_MB } from "./fake-app-server/control";
import { serveHandler } from "./serve-handler";

const env = process.env;
const provider = createProviderHandler({
  secrets: [env.LWC_SECRET ?? ""],
  upstream: { issuer: env.LWC_ISSUER_URL ?? "", codexBaseUrl: env.LWC_CODEX_BASE_URL ?? "" },
  // Unsandboxed: the tests run the fake app-server, which writes its log into the test's folder
  // (and, a Node process, needs more memory than codex's default cap).
  realtime: {
    agentVoice: { command: env.LWC_CODEX_COMMAND ?? "", keepWarmProcess: false, sandbox: "off", limits: { memoryMb: NODE_MEMORY_MB } },
  },
});
const served = await serveHandler(provider.handler);
process.stdout.write(`listening ${served.port}\n`);

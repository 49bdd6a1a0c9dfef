/**
 * `npm run demo`: the whole product offline. Starts the mock provider and the app
 * (`next dev`) wired to it, so a newcomer can sign in on the mock's approval page,
 * list models and stream replies with no account and no network.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { startMockUpstream } from "../mock-upstream/server";

const appPort = Number(process.env.PORT ?? 3000);
const mockPort = Number(process.env.MOCK_UPSTREAM_PORT ?? 4010);

/** True when nothing listens on the port (tried the way each server binds: next on all interfaces, the mock on loopback). */
function portIsFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** One clear line and the fix, instead of a banner followed by an EADDRINUSE stack. */
async function refuseBusyPorts(): Promise<void> {
  const busy: string[] = [];
  if (!(await portIsFree(appPort))) busy.push(`Port ${appPort} (the app) is already in use; free it or run with another: PORT=${appPort + 1} npm run demo`);
  if (!(await portIsFree(mockPort, "127.0.0.1"))) {
    busy.push(`Port ${mockPort} (the mock provider) is already in use; free it or run with another: MOCK_UPSTREAM_PORT=${mockPort + 1} npm run demo`);
  }
  if (busy.length === 0) return;
  for (const line of busy) console.error(line);
  process.exit(1);
}

async function main(): Promise<void> {
  await refuseBusyPorts();
  const mock = await startMockUpstream({ port: mockPort, host: "127.0.0.1" });
  const env = {
    ...process.env,
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    // A fresh secret each run: demo sessions end when the demo stops.
    LWC_SECRET: process.env.LWC_SECRET ?? randomBytes(32).toString("base64url"),
  };
  const app = spawn(process.execPath, ["node_modules/next/dist/bin/next", "dev", "-p", String(appPort)], {
    env,
    stdio: "inherit",
  });

  console.log(`
  Offline demo
  ────────────
  App:            http://localhost:${appPort}
  Mock provider:  ${mock.url}  (its approval page: ${mock.verificationUrl})

  Open the app, click "Sign in with ChatGPT", then approve the code on the
  mock provider's page. No real account or network is used. Ctrl+C stops both.
`);

  const shutdown = async () => {
    app.kill("SIGTERM");
    await mock.close();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  app.on("exit", async (code) => {
    await mock.close();
    process.exit(code ?? 0);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * `npm run demo`: the whole product offline. Starts the mock provider and the app
 * (`next dev`) wired to it, so a newcomer can sign in on the mock's approval page,
 * list models and stream replies with no account and no network.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { cachedCodexPath } from "../lib/agent-voice/codex-cache";
import { startMockUpstream } from "../mock-upstream/server";
import { demoSecret } from "./demo-secret";

const appPort = Number(process.env.PORT ?? 3000);
const mockPort = Number(process.env.MOCK_UPSTREAM_PORT ?? 4010);

/** The codex executable for agent voice: LWC_CODEX_COMMAND, else where scripts/ensure-codex.sh puts it. */
function codexCommand(): string | undefined {
  if (process.env.LWC_CODEX_COMMAND?.trim()) return process.env.LWC_CODEX_COMMAND.trim();
  const bin = cachedCodexPath();
  return existsSync(bin) ? bin : undefined;
}

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
  // Loaded here, not at the top: the path settings are read when lib/shared/base-path.ts loads, and a
  // bad LWC_BASE_PATH or LWC_API_BASE_PATH is then one line from main's catch, before anything starts.
  const { demoBanner, demoUrls } = await import("./demo-banner");
  demoUrls(appPort, process.env);
  await refuseBusyPorts();
  // codexAutoHandoff: in an agent voice call the mock's voice side asks to save a note by itself.
  const mock = await startMockUpstream({ port: mockPort, host: "127.0.0.1", codexAutoHandoff: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    // Kept in the data folder (scripts/demo-secret.ts), so a restarted demo still opens the chats the
    // server kept; sessions still end when the demo stops (they live in its memory).
    LWC_SECRET: demoSecret(process.env).secret,
    // Nothing leaves the machine: no usage telemetry from Next.js either.
    NEXT_TELEMETRY_DISABLED: "1",
    // Both sign-ins, against the mock: the device code and Continue with ChatGPT (docs/siwc.md).
    LWC_SIGN_IN: process.env.LWC_SIGN_IN ?? "device,siwc",
    LWC_SIWC_ISSUER: mock.siwcIssuer,
    LWC_SIWC_API_BASE: mock.siwcApiBase,
  };
  const codex = codexCommand();
  // Agent voice: the app writes the offline config itself, since the URLs point at the mock.
  if (codex) env.LWC_CODEX_COMMAND = codex;
  const agentVoice = codex
    ? `on (${codex})`
    : "off: the codex executable is not installed. Add it with `bash scripts/ensure-codex.sh` (about 400 MB, once), then restart the demo.";
  const app = spawn(process.execPath, ["node_modules/next/dist/bin/next", "dev", "-p", String(appPort)], {
    env,
    stdio: "inherit",
  });

  console.log(demoBanner({ appPort, env, mock, agentVoice }));

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

import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Holds a port the way another program would. */
function occupy(host?: string): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    servers.push(server);
    server.listen({ port: 0, host }, () => resolve((server.address() as { port: number }).port));
  });
}

/** Runs `npm run demo`'s script with the given env; resolves with its exit code and output. */
function runDemo(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/demo.ts"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run demo with a busy port", () => {
  it("says which port is busy and how to pick another, in one line, before starting anything", async () => {
    const appPort = await occupy();
    const mockPort = await occupy("127.0.0.1");
    const result = await runDemo({ PORT: String(appPort), MOCK_UPSTREAM_PORT: String(mockPort) });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain("Offline demo");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      `Port ${appPort} (the app) is already in use; free it or run with another: PORT=${appPort + 1} npm run demo`,
      `Port ${mockPort} (the mock provider) is already in use; free it or run with another: MOCK_UPSTREAM_PORT=${mockPort + 1} npm run demo`,
    ]);
  });
});

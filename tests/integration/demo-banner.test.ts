import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { demoBanner } from "@/scripts/demo-banner";

const mock = { url: "http://127.0.0.1:4010", verificationUrl: "http://127.0.0.1:4010/codex/device" };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Holds a port the way another program would (so the demo could not start anything even if it tried). */
function occupy(host?: string): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    servers.push(server);
    server.listen({ port: 0, host }, () => resolve((server.address() as { port: number }).port));
  });
}

function bannerFor(env: Record<string, string>): string {
  return demoBanner({ appPort: 3000, env, mock, agentVoice: "on" });
}

describe("npm run demo's banner", () => {
  it("names the app's page and API at the site root by default", () => {
    const banner = bannerFor({});
    expect(banner).toMatch(/^ {2}App: {12}http:\/\/localhost:3000\/$/m);
    expect(banner).toMatch(/^ {2}API: {12}http:\/\/localhost:3000\/api\/provider$/m);
    expect(banner).toContain(`Mock provider:  ${mock.url}  (its approval page: ${mock.verificationUrl})`);
  });

  it("follows LWC_BASE_PATH and LWC_API_BASE_PATH, alone and together", () => {
    expect(bannerFor({ LWC_BASE_PATH: "/chat-app/" })).toMatch(/^ {2}App: {12}http:\/\/localhost:3000\/chat-app$/m);
    expect(bannerFor({ LWC_BASE_PATH: "/chat-app/" })).toMatch(/^ {2}API: {12}http:\/\/localhost:3000\/chat-app\/api\/provider$/m);
    expect(bannerFor({ LWC_API_BASE_PATH: "/api/chatgpt" })).toMatch(/^ {2}API: {12}http:\/\/localhost:3000\/api\/chatgpt$/m);
    const both = bannerFor({ LWC_BASE_PATH: "/chat-app", LWC_API_BASE_PATH: "/api/chatgpt" });
    expect(both).toMatch(/^ {2}App: {12}http:\/\/localhost:3000\/chat-app$/m);
    expect(both).toMatch(/^ {2}API: {12}http:\/\/localhost:3000\/chat-app\/api\/chatgpt$/m);
  });

  it("with both sign-ins on (the demo's default), names both and the 127.0.0.1 page Continue with ChatGPT needs", () => {
    const banner = bannerFor({ LWC_SIGN_IN: "device,siwc", LWC_BASE_PATH: "/chat-app" });
    expect(banner).toContain('"Continue with ChatGPT"');
    expect(banner).toContain("http://127.0.0.1:3000/chat-app;");
    expect(banner).toContain('"Sign in with a one-time code"');
    expect(bannerFor({ LWC_SIGN_IN: "device" })).not.toContain("Continue with ChatGPT");
  });

  it("names the mock's SIWC issuer and API base when Sign in with ChatGPT is on", () => {
    const siwc = { LWC_SIWC_ISSUER: `${mock.url}/siwc`, LWC_SIWC_API_BASE: `${mock.url}/siwc/v1` };
    expect(bannerFor({ LWC_SIGN_IN: "device,siwc", ...siwc })).toMatch(
      /^ {2}Mock SIWC: {6}http:\/\/127\.0\.0\.1:4010\/siwc {2}\(API: http:\/\/127\.0\.0\.1:4010\/siwc\/v1\)$/m,
    );
    expect(bannerFor({ LWC_SIGN_IN: "device", ...siwc })).not.toContain("Mock SIWC");
  });

  it("refuses a bad path in one line before starting anything", async () => {
    const [appPort, mockPort] = [await occupy(), await occupy("127.0.0.1")];
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/demo.ts"], {
        env: { ...process.env, LWC_API_BASE_PATH: "/chatgpt", PORT: String(appPort), MOCK_UPSTREAM_PORT: String(mockPort) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain("Offline demo");
    expect(result.stderr.trim().split("\n")).toEqual([
      "LWC_API_BASE_PATH must be a path under /api/ such as /api/chatgpt (letters, digits, . _ ~ - between slashes)",
    ]);
  });
});

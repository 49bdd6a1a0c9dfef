import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../test-support/free-port";

/** The mock provider as its own process on a free port; resolves once it answers. */
export async function startMockProcess(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "mock-upstream/main.ts"], {
    env: { ...process.env, MOCK_UPSTREAM_PORT: String(port), MOCK_UPSTREAM_HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i += 1) {
    if (await fetch(`${url}/__mock/requests`).then((r) => r.ok, () => false)) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error("mock upstream did not start");
}

export async function mockControl(mockUrl: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${mockUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
}

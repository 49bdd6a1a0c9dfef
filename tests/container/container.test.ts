/**
 * The image the Dockerfile builds, checked as a person would use it. `npm run test:container`
 * (scripts/container/test.sh) builds it with podman and runs this file; each container runs on the
 * host's network, listening on 127.0.0.1, against the mock provider running here on the host.
 *
 * - What is in the image: production dependencies only, no tests, no build cache, no env file.
 * - docs/deploy.md's `podman run` flags, and its `docker run` flags (podman takes them too): health
 *   answers with agent voice sandboxed, a device sign-in, a streamed reply, a real agent-voice start
 *   whose codex runs a tool call, every process the unprivileged node user, and SIGTERM ending every
 *   process within 10 s (timed from the signal to `podman wait` returning).
 * - podman's defaults: the app serves, and agent voice reports itself unavailable (fails closed).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "@/mock-upstream/server";
import { SIDEBAND_IN, SIDEBAND_PATH } from "@/mock-upstream/codex";
import { loopbackOffer, type LoopbackOffer } from "@/tests/codex-real/loopback-offer";
import { openEvents } from "@/tests/integration/app-server-harness";
import { responsesBody, SessionClient } from "@/tests/multi/session-client";
import { documentedRunLine, imageUnderTest, podman, projectRoot, runContainer, untilHealthy, type RunningContainer } from "./podman";
import { installedPackages, productionPackages } from "./production-packages";

const image = imageUnderTest();
const containerNames: string[] = [];
let mock: MockUpstream;
const offers: LoopbackOffer[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ port: Number(process.env.CONTAINER_TEST_MOCK_PORT) || 0 });
});

afterAll(async () => {
  for (const offer of offers) await offer.close();
  // Every container this file started, stopped or not (scripts/container/test.sh checks again after).
  if (containerNames.length > 0) await podman("rm", "--force", "--time", "0", "--ignore", ...containerNames);
  await mock?.close();
});

function appEnv(): Record<string, string> {
  return {
    LWC_SECRET: "container-test-secret-0123456789abcdef",
    LWC_ALLOW_MEMORY_STORE: "1",
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    LWC_CHATGPT_URL: mock.url,
  };
}

async function start(label: string, securityOpts: string[]): Promise<RunningContainer> {
  const name = `lwc-container-test-${process.pid}-${label}`;
  containerNames.push(name);
  return runContainer({ image, name, securityOpts, env: appEnv() });
}

describe("the image", () => {
  let rootfs: string;
  beforeAll(async () => {
    rootfs = (await podman("image", "mount", image)).trim();
  });
  afterAll(async () => {
    if (rootfs) await podman("image", "unmount", image);
  });

  it("holds the production build and the packages production needs, no other (no dev dependency)", () => {
    const app = join(rootfs, "app");
    expect(existsSync(join(app, ".next", "BUILD_ID"))).toBe(true);
    const lock = JSON.parse(readFileSync(join(projectRoot, "package-lock.json"), "utf8"));
    const needed = productionPackages(lock);
    const installed = installedPackages(app);
    expect(installed).toContain("node_modules/next");
    expect(installed.filter((path) => !needed.has(path)), "packages production does not need").toEqual([]);
    const devDependencies = Object.keys(JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")).devDependencies);
    // A dev dependency production also reaches (tar-stream: @vercel/sandbox's, and the fake Sandbox API's) stays.
    const devOnly = devDependencies.filter((name) => !needed.has(`node_modules/${name}`));
    expect(devOnly.filter((name) => existsSync(join(app, "node_modules", name)))).toEqual([]);
  });

  it("holds no test, test folder or env file of the project", () => {
    const app = join(rootfs, "app");
    const ours = readdirSync(app, { recursive: true, encoding: "utf8" }).filter((path) => !path.startsWith("node_modules/"));
    expect(ours).toContain("next.config.ts");
    expect(ours.filter((path) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(path)), "test files").toEqual([]);
    for (const folder of ["tests", "e2e", "mock-upstream", "test-support", "scripts", ".git"]) expect(existsSync(join(app, folder)), folder).toBe(false);
    expect(ours.filter((path) => /(^|\/)\.env/.test(path)), "env files").toEqual([]);
  });

  it("carries no build cache (.next/cache is empty, no npm cache in any home folder) and no source map", () => {
    expect(readdirSync(join(rootfs, "app", ".next", "cache"))).toEqual([]);
    const maps = readdirSync(join(rootfs, "app"), { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".map"));
    expect(maps.slice(0, 5), `${maps.length} source maps`).toEqual([]);
    for (const cache of ["root/.npm", "root/.cache", "home/node/.npm", "home/node/.cache"]) expect(existsSync(join(rootfs, cache)), cache).toBe(false);
  });
});

const sidebandFrame = (type: string) => (request: RecordedRequest) =>
  request.method === SIDEBAND_IN && request.path === SIDEBAND_PATH && (request.body as { type?: string } | undefined)?.type === type;

describe.each([
  ["podman", documentedRunLine("podman")],
  ["docker", documentedRunLine("docker")],
] as const)("docs/deploy.md's `%s run` flags", (engine, line) => {
  let container: RunningContainer;
  const user = new SessionClient();

  it("are what docs/deploy.md says, never --privileged or an added capability", () => {
    expect(line.flags).not.toContain("--privileged");
    expect(line.flags).not.toContain("--cap-add");
    expect(line.securityOpts.length).toBeGreaterThan(0);
    // A seccomp profile the line names is the one beside the Dockerfile.
    for (const opt of line.securityOpts.filter((o) => o.startsWith("seccomp="))) expect(existsSync(join(projectRoot, opt.slice("seccomp=".length)))).toBe(true);
  });

  it("/api/health answers ok with agent voice sandboxed", async () => {
    // The seccomp profile path is relative to the project, where the docs' line is run from.
    const opts = line.securityOpts.map((opt) => (opt.startsWith("seccomp=") ? `seccomp=${join(projectRoot, opt.slice("seccomp=".length))}` : opt));
    container = await start(engine, opts);
    const health = await untilHealthy(container);
    expect(health).toMatchObject({ status: 200, body: { status: "ok", agentVoice: "sandboxed" } });
  });

  it("signs in with the device code against the provider, and streams a reply", async () => {
    await user.signIn(container.url, mock, { accountId: `acct_container_${engine}`, email: `container-${engine}@example.com` });
    mock.setOptions({ streamChunkDelayMs: 200 });
    try {
      const reply = await user.request(container.url, "/responses", { method: "POST", body: responsesBody("Say hello from the container.") });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toContain("text/event-stream");
      const reader = reply.body!.getReader();
      const decoder = new TextDecoder();
      // The first text arrives while the provider is still sending (200 ms between its deltas).
      let text = "";
      while (!text.includes("response.output_text.delta")) text += decoder.decode((await reader.read()).value, { stream: true });
      expect(text).not.toContain("response.completed");
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
      expect(text).toContain("response.completed");
    } finally {
      mock.setOptions({ streamChunkDelayMs: 25 });
    }
  });

  it("starts agent voice: codex in its sandbox connects the call and runs a tool call of a handoff", async () => {
    const offer = await loopbackOffer();
    offers.push(offer);
    const lastRecorded = Math.max(0, ...mock.requests().map((request) => request.id));
    const started = await user.json<{ sessionId: string; sdp: string }>(container.url, "/realtime/app-server", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sdp: offer.sdp, session: { voice: "cove" } }),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.sdp).toMatch(/^v=0\r\n/);
    await mock.waitForRequest((request) => request.id > lastRecorded && sidebandFrame("session.update")(request));

    const events = await openEvents({ raw: (method, path, init) => user.request(container.url, path, { method, ...init }) }, started.body.sessionId);
    mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
    expect(mock.codex.requestHandoff({ transcript: "What time is it?" })).toBeDefined();
    expect(await events.next((event) => event.type === "tool.completed")).toMatchObject({ tool: "get_current_time" });
    events.close();
  });

  it("runs every process as the unprivileged node user (the server, codex and its sandbox included)", async () => {
    const processes = await container.processes();
    expect(processes.some((row) => row.command.includes("next-server"))).toBe(true);
    expect(processes.some((row) => row.command.includes("app-server"))).toBe(true);
    expect(processes.filter((row) => row.user !== "node")).toEqual([]);
  });

  it("ends every process within 10 s of SIGTERM (from the signal to podman wait returning)", async () => {
    const pids = (await container.processes()).map((row) => row.hostPid);
    const signalled = performance.now();
    await podman("kill", "--signal", "TERM", container.name);
    const exitCode = Number((await podman("wait", container.name)).trim());
    const elapsedMs = performance.now() - signalled;
    console.log(`${engine} flags: SIGTERM → container exited with ${exitCode} after ${Math.round(elapsedMs)} ms`);
    expect(elapsedMs).toBeLessThan(10_000);
    // The server ended on the signal (tini reports 128 + 15), not killed (137).
    expect([0, 143]).toContain(exitCode);
    expect(pids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  });
});

describe("podman's default flags", () => {
  it("serve the app, and agent voice fails closed: unavailable", async () => {
    const container = await start("defaults", []);
    expect(await untilHealthy(container)).toMatchObject({ status: 200, body: { status: "ok", agentVoice: "unavailable" } });
  });
});

/**
 * `npm run doctor` against real servers: the mock upstream, real Redis behind the Upstash REST
 * bridge, a handler served over HTTP for `--live`, the real bubblewrap. Each check passes against a
 * healthy set-up and fails against a mock (or a configuration) that answers that failure.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runDoctor, type DoctorOptions } from "@/lib/doctor/run";
import type { CheckResult } from "@/lib/doctor/types";
import { closedPortUrl } from "@/test-support/upstream-helpers";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startRedisServer, type RedisServer } from "@/test-support/redis-server";
import { connectResp } from "@/test-support/resp-connection";
import { startUpstashBridge, type UpstashBridge } from "@/test-support/upstash-bridge";
import { createEvidence, findLeakedTokens, signIn, startHarness, type Harness, type TestClient } from "./harness";

const root = join(import.meta.dirname, "..", "..");
const SECRET = randomBytes(36).toString("base64url");
const BRIDGE_TOKEN = "bridge-token-for-the-doctor";
const evidence = createEvidence();
let mock: MockUpstream;
let redis: RedisServer;
let bridge: UpstashBridge;
let app: Harness;

beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  redis = await startRedisServer();
  bridge = await startUpstashBridge({ redisPort: redis.port, token: BRIDGE_TOKEN });
  app = await startHarness({ evidence, sharedMock: mock });
});
afterAll(async () => {
  await app?.close();
  await bridge?.close();
  await redis?.dispose();
  await mock?.close();
});
beforeEach(() => mock.clearFaults());

/** A deploy's environment pointed at the mock (nothing leaves 127.0.0.1). */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return { LWC_SECRET: SECRET, LWC_ISSUER_URL: mock.issuer, LWC_CODEX_BASE_URL: mock.codexBaseUrl, LWC_CHATGPT_URL: mock.url, ...extra };
}

async function doctor(options: Partial<DoctorOptions> & { env: Record<string, string> }): Promise<CheckResult[]> {
  const results = await runDoctor({ production: false, timeoutMs: 3000, ...options });
  evidence.bodies.push(JSON.stringify(results));
  return results;
}

const row = (results: CheckResult[], check: string): CheckResult => {
  const found = results.find((result) => result.check === check);
  if (!found) throw new Error(`no "${check}" row in ${results.map((result) => result.check).join(", ")}`);
  return found;
};

async function signedIn(accountId: string): Promise<TestClient> {
  const client = app.client();
  await signIn(app, client, { accountId, email: `${accountId}@example.com` });
  return client;
}

describe("the configuration checks", () => {
  it("a deploy pointed at the mock: configuration, secret, store and every upstream URL pass; agent voice off is skipped", async () => {
    const results = await doctor({ env: env() });
    expect(results.map((result) => [result.check, result.status])).toEqual([
      ["configuration", "ok"],
      ["secret", "ok"],
      ["store", "ok"],
      ["agent sandbox", "skip"],
      ["codex binary", "skip"],
      ["issuer URL", "ok"],
      ["codex base URL", "ok"],
      ["verification URL", "ok"],
    ]);
    expect(row(results, "codex base URL").detail).toMatch(/HTTP 401/);
    expect(row(results, "store").detail).toMatch(/memory/);
  });

  it("a bad variable fails the configuration row, naming it (never its value), and the rest is skipped", async () => {
    const results = await doctor({ env: env({ LWC_RATE_LIMIT_PER_MINUTE: "lots-of-them" }) });
    expect(row(results, "configuration")).toMatchObject({ status: "fail", detail: expect.stringMatching(/LWC_RATE_LIMIT_PER_MINUTE/) });
    expect(row(results, "configuration").detail).not.toContain("lots-of-them");
    expect(results.filter((result) => result.check !== "configuration").every((result) => result.status === "skip")).toBe(true);
  });

  it("a voice model off its allow-list fails the configuration row as the server's start would", async () => {
    const results = await doctor({ env: env({ LWC_REALTIME_MODEL: "gpt-live-1-codex", LWC_ALLOWED_REALTIME_MODELS: "gpt-realtime-1.5" }) });
    expect(row(results, "configuration")).toMatchObject({ status: "fail", detail: expect.stringMatching(/LWC_REALTIME_MODEL.*LWC_ALLOWED_REALTIME_MODELS/) });
  });

  it("in production: no secret fails, and so does the in-memory store", async () => {
    const results = await doctor({ env: env({ LWC_SECRET: "" }), production: true });
    expect(row(results, "secret")).toMatchObject({ status: "fail", detail: expect.stringMatching(/LWC_SECRET is not set/) });
    expect(row(results, "store")).toMatchObject({ status: "fail", detail: expect.stringMatching(/memory.*production/i) });
  });

  it("in production, LWC_ALLOW_MEMORY_STORE=1 (one instance on purpose) makes the memory store a warning", async () => {
    const results = await doctor({ env: env({ LWC_ALLOW_MEMORY_STORE: "1" }), production: true });
    expect(row(results, "store")).toMatchObject({ status: "warn", detail: expect.stringMatching(/LWC_ALLOW_MEMORY_STORE=1/) });
  });

  it("a guessable secret fails without being shown", async () => {
    const guessable = "our-production-secret-0123456789-abcdef";
    const results = await doctor({ env: env({ LWC_SECRET: guessable }) });
    expect(row(results, "secret")).toMatchObject({ status: "fail", detail: expect.stringMatching(/guessable/) });
    expect(JSON.stringify(results)).not.toContain(guessable);
  });
});

describe("the store check", () => {
  it("Upstash (real Redis behind the REST bridge): written, read back and deleted; production is fine with it", async () => {
    const results = await doctor({
      env: env({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: BRIDGE_TOKEN }),
      production: true,
    });
    expect(row(results, "store")).toMatchObject({ status: "ok", detail: expect.stringMatching(/upstash/) });
    expect(bridge.commandNames()).toEqual(expect.arrayContaining(["SET", "GET", "DEL"]));
    const connection = await connectResp(redis.port);
    try {
      expect(await connection.send([["KEYS", "*"]])).toEqual([[]]);
    } finally {
      connection.close();
    }
  });

  it("Upstash refusing the token fails, without the token in the detail", async () => {
    const results = await doctor({ env: env({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: "not-the-bridge-token" }) });
    expect(row(results, "store")).toMatchObject({ status: "fail", detail: expect.stringMatching(/upstash.*unavailable/i) });
    expect(row(results, "store").detail).not.toContain("not-the-bridge-token");
  });

  it("Upstash that cannot be reached fails", async () => {
    const results = await doctor({ env: env({ UPSTASH_REDIS_REST_URL: await closedPortUrl(), UPSTASH_REDIS_REST_TOKEN: BRIDGE_TOKEN }) });
    expect(row(results, "store")).toMatchObject({ status: "fail", detail: expect.stringMatching(/network error|unavailable/i) });
  });
});

describe("the upstream URL checks", () => {
  it("a base URL nobody listens on fails; the others still pass", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_BASE_URL: `${await closedPortUrl()}/backend-api/codex` }) });
    expect(row(results, "codex base URL")).toMatchObject({ status: "fail", detail: expect.stringMatching(/could not be reached/) });
    expect(row(results, "issuer URL").status).toBe("ok");
  });

  it("the provider's edge answering with a challenge page fails: this machine is blocked", async () => {
    mock.addFault({ fault: "cloudflare_challenge" });
    const results = await doctor({ env: env() });
    expect(row(results, "codex base URL")).toMatchObject({ status: "fail", detail: expect.stringMatching(/challenge/i) });
  });

  it("the edge answering 503 (the backend down) is reachable but worth a look (warn)", async () => {
    mock.addFault({ fault: "edge_unavailable" });
    const results = await doctor({ env: env() });
    expect(row(results, "codex base URL")).toMatchObject({ status: "warn", detail: expect.stringMatching(/HTTP 503/) });
  });

  it("the SIWC issuer and API base are checked when LWC_SIGN_IN has siwc", async () => {
    const siwc = { LWC_SIGN_IN: "device,siwc", LWC_SIWC_ISSUER: mock.siwcIssuer, LWC_SIWC_API_BASE: mock.siwcApiBase };
    const results = await doctor({ env: env(siwc) });
    expect(row(results, "SIWC issuer")).toMatchObject({ status: "ok", detail: expect.stringMatching(/HTTP 200/) });
    expect(row(results, "SIWC API base").status).toBe("ok");
    const unreachable = await doctor({ env: env({ ...siwc, LWC_SIWC_ISSUER: await closedPortUrl() }) });
    expect(row(unreachable, "SIWC issuer").status).toBe("fail");
    expect((await doctor({ env: env() })).some((result) => result.check.startsWith("SIWC"))).toBe(false);
  });

  it("the ChatGPT URL is checked when a web voice transport is on", async () => {
    const results = await doctor({ env: env({ LWC_REALTIME_TRANSPORTS: "codex,vp" }) });
    expect(row(results, "ChatGPT URL").status).toBe("ok");
  });
});

describe("the agent-voice checks (LWC_CODEX_COMMAND set)", () => {
  it("a command that does not exist fails the codex binary row; the real bubblewrap sandbox passes", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex") }) });
    expect(row(results, "codex binary")).toMatchObject({ status: "fail", detail: expect.stringMatching(/could not be run/) });
    expect(row(results, "agent sandbox")).toMatchObject({ status: "ok", detail: expect.stringMatching(/bwrap/) });
  });

  it("the sandbox row names each codex process's limits and how they hold", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex"), LWC_AGENT_MEMORY_MB: "300", LWC_AGENT_CPU_SECONDS: "90" }) });
    expect(row(results, "agent sandbox").detail).toMatch(/each codex process: 300 MB of memory and .* \((a cgroup v2 group|rlimits)\), 90 s of CPU time, 64 MB in its home;/);
  });

  it("the sandbox row names what its own network reaches: the upstream's hosts and LWC_AGENT_SANDBOX_ALLOW_HOSTS", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex"), LWC_AGENT_SANDBOX_ALLOW_HOSTS: "extra.example:8443" }) });
    const mockHost = new URL(mock.codexBaseUrl).host;
    expect(row(results, "agent sandbox").detail).toMatch(
      new RegExp(`; its own network: only ${mockHost.replace(/\./g, "\\.")}(, [^ ]+)*, extra\\.example:8443, through the server's egress proxy$`),
    );
  });

  it("a read-only path that holds the app's folder fails, naming it and the fix", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex"), LWC_AGENT_SANDBOX_READONLY_PATHS: dirname(root) }) });
    expect(row(results, "agent sandbox")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`it would show ${dirname(root)}, which holds the app's folder`),
    });
  });

  it("a sandbox that cannot be built fails with the fix", async () => {
    const results = await doctor({
      env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex"), LWC_AGENT_SANDBOX_READONLY_PATHS: join(root, "no-such-folder") }),
    });
    expect(row(results, "agent sandbox")).toMatchObject({ status: "fail", detail: expect.stringMatching(/bwrap/) });
  });

  it("the sandbox switched off is a warning", async () => {
    const results = await doctor({ env: env({ LWC_CODEX_COMMAND: join(root, "no-such-codex"), LWC_AGENT_SANDBOX: "off" }) });
    expect(row(results, "agent sandbox")).toMatchObject({ status: "warn", detail: expect.stringMatching(/LWC_AGENT_SANDBOX=off/) });
  });
});

describe("--live: a signed-in session's cookie, nothing signed in", () => {
  // A model every account of the mock may use at our client version (the catalog's first may be gated above it).
  const live = (client: TestClient, extra: Partial<NonNullable<DoctorOptions["live"]>> = {}) => ({
    url: app.served.url,
    cookie: `lwc_session=${client.cookie}`,
    model: "gpt-5.5",
    ...extra,
  });

  it("lists the account's models and streams one tiny reply", async () => {
    const client = await signedIn("acct_doctor_ok");
    const logins = mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length;
    const results = await doctor({ env: env(), live: live(client) });
    expect(row(results, "live: session")).toMatchObject({ status: "ok", detail: expect.stringMatching(/authenticated/) });
    expect(row(results, "live: reply")).toMatchObject({ status: "ok", detail: expect.stringMatching(/response\.completed/) });
    // Nothing was signed in: no new device code.
    expect(mock.requests({ path: "/api/accounts/deviceauth/usercode" }).length).toBe(logins);
    expect(JSON.stringify(results)).not.toContain(client.cookie!);
  });

  it("the models row lists what the account can use here, and warns about models gated above our client version", async () => {
    const client = await signedIn("acct_doctor_models");
    const listed = (await client.get("/models")).json<{ models: string[]; modelDetails: { slug: string; unavailable?: { message: string } }[] }>();
    const gated = listed.modelDetails.filter((model) => model.unavailable);
    // The mock's catalog always holds one model that needs the next client version (mock-upstream/models.ts).
    expect(gated.length).toBeGreaterThan(0);
    const { detail, status } = row(await doctor({ env: env(), live: live(client) }), "live: models");
    expect(status).toBe("warn");
    expect(detail).toMatch(new RegExp(`^${listed.models.length} models: ${listed.models[0]}, `));
    expect(detail).toContain(`not usable here: ${gated[0]!.slug} (${gated[0]!.unavailable!.message}`.slice(0, 120));
  });

  it("calls the API where LWC_API_BASE_PATH moved it", async () => {
    const client = await signedIn("acct_doctor_moved");
    // The same sessions served under /api/chatgpt, as a build with LWC_API_BASE_PATH=/api/chatgpt serves them.
    const moved = await startHarness({ evidence, sharedMock: mock, handler: { sessionStore: app.store, basePath: "/api/chatgpt" } });
    try {
      const results = await doctor({ env: env({ LWC_API_BASE_PATH: "/api/chatgpt" }), live: live(client, { url: moved.served.url }) });
      expect(row(results, "live: session")).toMatchObject({ status: "ok", detail: expect.stringMatching(/authenticated/) });
      expect(row(results, "live: reply")).toMatchObject({ status: "ok", detail: expect.stringMatching(/response\.completed/) });
    } finally {
      await moved.close();
    }
  });

  it("the bare cookie value works too", async () => {
    const client = await signedIn("acct_doctor_bare");
    const results = await doctor({ env: env(), live: live(client, { cookie: client.cookie! }) });
    expect(row(results, "live: reply")).toMatchObject({ status: "ok", detail: expect.stringContaining("gpt-5.5") });
    expect(mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body).toMatchObject({ model: "gpt-5.5" });
  });

  it("without --model the reply asks the first model the account can use, as the chat page does", async () => {
    const client = await signedIn("acct_doctor_first");
    const first = (await client.get("/models")).json<{ models: string[] }>().models[0];
    const results = await doctor({ env: env(), live: live(client, { model: undefined }) });
    expect(row(results, "live: reply").detail.startsWith(`${first}`)).toBe(true);
    expect(mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body).toMatchObject({ model: first });
  });

  it("a cookie with no signed-in session fails the session row and skips the rest", async () => {
    const results = await doctor({ env: env(), live: { url: app.served.url, cookie: "lwc_session=nobody.nothing" } });
    expect(row(results, "live: session")).toMatchObject({ status: "fail", detail: expect.stringMatching(/unauthenticated/) });
    expect(row(results, "live: models").status).toBe("skip");
    expect(row(results, "live: reply").status).toBe("skip");
  });

  it("the backend failing the model list: the row carries the backend's words", async () => {
    const client = await signedIn("acct_doctor_models_5xx");
    mock.addFault({ fault: "server_error", accountId: "acct_doctor_models_5xx" });
    const results = await doctor({ env: env(), live: live(client) });
    expect(row(results, "live: models")).toMatchObject({ status: "fail", detail: expect.stringMatching(/HTTP 500/) });
    expect(row(results, "live: models").detail).toMatch(/An error occurred while processing your request/);
  });

  it("the backend refusing the reply (usage limit): the row carries its status and words", async () => {
    const client = await signedIn("acct_doctor_limit");
    await client.get("/models");
    mock.addFault({ fault: "usage_limit", accountId: "acct_doctor_limit" });
    const results = await doctor({ env: env(), live: live(client) });
    expect(row(results, "live: models").status).not.toBe("fail");
    expect(row(results, "live: reply")).toMatchObject({ status: "fail", detail: expect.stringMatching(/HTTP 429.*usage limit/i) });
  });

  it("a reply stream cut short fails with the in-band error the app sent, and the events seen", async () => {
    const client = await signedIn("acct_doctor_cut");
    await client.get("/models");
    mock.addFault({ fault: "stream_cut", accountId: "acct_doctor_cut" });
    const results = await doctor({ env: env(), live: live(client) });
    expect(row(results, "live: reply")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/the stream reported .*broke off.*\(events: response\.created, .*error\)$/),
    });
  });

  it("an app that cannot be reached fails the session row", async () => {
    const results = await doctor({ env: env(), live: { url: await closedPortUrl(), cookie: "lwc_session=x.y" } });
    expect(row(results, "live: session")).toMatchObject({ status: "fail", detail: expect.stringMatching(/could not be reached/) });
  });
});

/** `npm run doctor` as an operator runs it: the script, a fresh environment, the exit code. */
function runCli(args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", join(root, "scripts", "doctor.ts"), ...args], {
      cwd: root,
      // NODE_ENV=test: Next's env loading then skips .env.local, so a developer's own file cannot change the outcome.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "test", ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run doctor (the script)", () => {
  it("prints the table and exits 0 when nothing fails", async () => {
    const { code, stdout } = await runCli([], env());
    expect(stdout).toMatch(/^Check\s+Result\s+Detail$/m);
    expect(stdout).toMatch(/^codex base URL\s+ok\s+/m);
    expect(code).toBe(0);
  });

  it("exits 1 when a check fails (production with the memory store), and --live with a cookie file runs the live rows", async () => {
    const client = await signedIn("acct_doctor_cli");
    const cookieFile = join(await import("node:os").then((os) => os.tmpdir()), `doctor-cookie-${randomBytes(6).toString("hex")}`);
    const { writeFileSync, rmSync } = await import("node:fs");
    writeFileSync(cookieFile, `lwc_session=${client.cookie}\n`, { mode: 0o600 });
    try {
      const { code, stdout } = await runCli(["--production", "--live", "--url", app.served.url, "--cookie-file", cookieFile, "--model", "gpt-5.5"], env());
      expect(stdout).toMatch(/^store\s+FAIL\s+/m);
      expect(stdout).toMatch(/^live: reply\s+ok\s+/m);
      expect(stdout).not.toContain(client.cookie!);
      expect(code).toBe(1);
    } finally {
      rmSync(cookieFile);
    }
  });

  it("--production without LWC_SECRET exits 1 naming it, also with a shared store that answers", async () => {
    const { code, stdout } = await runCli(["--production"], env({ LWC_SECRET: "", UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: BRIDGE_TOKEN }));
    expect(stdout).toMatch(/^secret\s+FAIL\s+LWC_SECRET is not set/m);
    expect(stdout).toMatch(/^store\s+ok\s+/m);
    expect(code).toBe(1);
  });

  it("--live without --url is a usage error (exit 2)", async () => {
    const { code, stderr } = await runCli(["--live"], env());
    expect(stderr).toMatch(/--url/);
    expect(code).toBe(2);
  });
});

it("leaks no token: not in the rows, not in the app's replies or logs", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});

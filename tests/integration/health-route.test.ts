/**
 * Deploy guards, through /api/health's answer (lib/health.ts, which app/api/health/route.ts returns
 * per request) and lib/provider-app.ts, loaded the way the server loads them (a fresh module graph
 * per environment): in production the in-memory store
 * (unless LWC_ALLOW_MEMORY_STORE=1) and a missing LWC_SECRET make the route answer `degraded` with
 * the reasons; on Vercel (VERCEL=1) the in-memory store refuses to start unless allowed.
 */
import { dirname } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const SECRET = "health-route-test-secret-0123456789abcdef";

async function loadHealth(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const name of [
    "LWC_SECRET",
    "LWC_ALLOW_MEMORY_STORE",
    "VERCEL",
    "UPSTASH_REDIS_REST_URL",
    "UPSTASH_REDIS_REST_TOKEN",
    "KV_REST_API_URL",
    "KV_REST_API_TOKEN",
    "LWC_CODEX_COMMAND",
    "LWC_AGENT_SANDBOX_READONLY_PATHS",
  ]) {
    vi.stubEnv(name, undefined);
  }
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return import("@/lib/health");
}

async function health(env: Record<string, string | undefined>) {
  const { healthResponse } = await loadHealth(env);
  const reply = await healthResponse();
  return { status: reply.status, body: (await reply.json()) as Record<string, unknown>, cacheControl: reply.headers.get("cache-control") };
}

afterEach(() => vi.unstubAllEnvs());

describe("/api/health and the production setup", () => {
  it("reports degraded (200) with memory_store on the in-memory store in production", async () => {
    expect(await health({ NODE_ENV: "production", LWC_SECRET: SECRET })).toEqual({
      status: 200,
      body: { status: "degraded", store: "ok", modelAccess: "on", agentVoice: "off", reasons: ["memory_store"] },
      cacheControl: "no-store",
    });
  });

  it("adds ephemeral_secret when LWC_SECRET is not set in production", async () => {
    const reply = await health({ NODE_ENV: "production" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "degraded", store: "ok", reasons: ["memory_store", "ephemeral_secret"] });
  });

  it("is ok, in the same shape as before, with LWC_ALLOW_MEMORY_STORE=1 and a secret", async () => {
    expect(await health({ NODE_ENV: "production", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" })).toEqual({
      status: 200,
      body: { status: "ok", store: "ok", modelAccess: "on", agentVoice: "off" },
      cacheControl: "no-store",
    });
  });

  it("is ok in development whatever the store and secret", async () => {
    expect((await health({ NODE_ENV: "development" })).body).toEqual({ status: "ok", store: "ok", modelAccess: "on", agentVoice: "off" });
  });

  it("names store_unavailable (503) when the shared store does not answer, and no memory_store", async () => {
    // A loopback port nothing listens on: the store check fails at once.
    const reply = await health({
      NODE_ENV: "production",
      LWC_SECRET: SECRET,
      UPSTASH_REDIS_REST_URL: "http://127.0.0.1:9",
      UPSTASH_REDIS_REST_TOKEN: "token-for-a-store-that-is-not-there",
    });
    expect(reply).toEqual({
      status: 503,
      body: { status: "degraded", store: "unavailable", modelAccess: "on", agentVoice: "off", reasons: ["store_unavailable"] },
      cacheControl: "no-store",
    });
  });
});

describe("/api/health with agent voice", () => {
  const withAgent = { NODE_ENV: "development", LWC_CODEX_COMMAND: "true" };

  it("says it runs sandboxed, and how each codex process's memory and process caps hold (cgroup or rlimit)", async () => {
    const { body } = await health(withAgent);
    expect(body).toEqual({ status: "ok", store: "ok", modelAccess: "on", agentVoice: "sandboxed", agentVoiceLimits: expect.stringMatching(/^(cgroup|rlimit)$/) });
  });

  it("says unavailable, and nothing about limits, when the sandbox would show the app's folder", async () => {
    const { status, body } = await health({ ...withAgent, LWC_AGENT_SANDBOX_READONLY_PATHS: dirname(process.cwd()) });
    expect({ status, body }).toEqual({ status: 200, body: { status: "ok", store: "ok", modelAccess: "on", agentVoice: "unavailable" } });
  });
});

describe("on Vercel (VERCEL=1)", () => {
  it("refuses to start on the in-memory store, naming the variables that fix it", async () => {
    await expect(loadHealth({ NODE_ENV: "production", VERCEL: "1", LWC_SECRET: SECRET })).rejects.toThrow(
      /in-memory session store cannot run on Vercel.*KV_REST_API_URL.*UPSTASH_REDIS_REST_URL.*LWC_ALLOW_MEMORY_STORE=1/,
    );
  });

  it("starts with LWC_ALLOW_MEMORY_STORE=1, or with a shared store", async () => {
    expect((await health({ NODE_ENV: "production", VERCEL: "1", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" })).body.status).toBe("ok");
    await expect(
      loadHealth({ NODE_ENV: "production", VERCEL: "1", LWC_SECRET: SECRET, KV_REST_API_URL: "http://127.0.0.1:9", KV_REST_API_TOKEN: "t" }),
    ).resolves.toBeDefined();
  });

  it("refuses to start without LWC_SECRET, naming it, also with a shared store", async () => {
    const store = { KV_REST_API_URL: "http://127.0.0.1:9", KV_REST_API_TOKEN: "t" };
    await expect(loadHealth({ NODE_ENV: "production", VERCEL: "1", ...store })).rejects.toThrow(
      /LWC_SECRET is not set.*Vercel.*openssl rand -base64 48/,
    );
    await expect(loadHealth({ NODE_ENV: "production", VERCEL: "1", LWC_SECRET: " , ", ...store })).rejects.toThrow(/LWC_SECRET is not set/);
  });

  it("names both the store and the secret when both are missing", async () => {
    const refusal = await loadHealth({ NODE_ENV: "production", VERCEL: "1" }).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(refusal).toMatch(/in-memory session store cannot run on Vercel/);
    expect(refusal).toMatch(/LWC_SECRET is not set/);
  });

  it("rejects a value of LWC_ALLOW_MEMORY_STORE other than 0 or 1", async () => {
    await expect(loadHealth({ NODE_ENV: "production", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "yes" })).rejects.toThrow(
      /Invalid environment variable LWC_ALLOW_MEMORY_STORE/,
    );
  });
});

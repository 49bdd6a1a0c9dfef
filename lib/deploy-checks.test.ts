import { describe, expect, it } from "vitest";
import { deploymentProblems, logDeploymentProblems, refuseBrokenDeployOnVercel } from "./deploy-checks";

const SECRET = "deploy-checks-test-secret-0123456789abcdef";
const UPSTASH = { UPSTASH_REDIS_REST_URL: "https://example.upstash.io", UPSTASH_REDIS_REST_TOKEN: "upstash-token-value-7f3a" };

function logged(env: Record<string, string | undefined>) {
  const lines: { level: string; message: string }[] = [];
  const push = (level: string) => (message: string) => void lines.push({ level, message });
  logDeploymentProblems(env, { info: push("info"), warn: push("warn"), error: push("error") });
  return lines;
}

describe("deploymentProblems", () => {
  it("names the in-memory store and a missing secret in production only", () => {
    expect(deploymentProblems({ NODE_ENV: "production" })).toEqual(["memory_store", "ephemeral_secret"]);
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: ` ${SECRET} ` })).toEqual(["memory_store"]);
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: " , " })).toEqual(["memory_store", "ephemeral_secret"]);
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: SECRET, ...UPSTASH })).toEqual([]);
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: SECRET, KV_REST_API_URL: "https://kv", KV_REST_API_TOKEN: "t" })).toEqual([]);
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" })).toEqual([]);
    expect(deploymentProblems({ NODE_ENV: "development" })).toEqual([]);
    expect(deploymentProblems({ NODE_ENV: "test" })).toEqual([]);
  });

  it("counts a half-set Upstash pair as the in-memory store (the server refuses that pair anyway)", () => {
    expect(deploymentProblems({ NODE_ENV: "production", LWC_SECRET: SECRET, UPSTASH_REDIS_REST_URL: "https://x" })).toEqual(["memory_store"]);
  });
});

describe("logDeploymentProblems (at start)", () => {
  it("logs one error per problem, saying what /api/health reports and how to fix it", () => {
    const lines = logged({ NODE_ENV: "production" });
    expect(lines.map((line) => line.level)).toEqual(["error", "error"]);
    expect(lines[0]!.message).toMatch(/^\[login-with-chatgpt\] production setup \(\/api\/health reports "memory_store"\): .*UPSTASH_REDIS_REST_URL.*LWC_ALLOW_MEMORY_STORE=1/);
    expect(lines[1]!.message).toMatch(/^\[login-with-chatgpt\] production setup \(\/api\/health reports "ephemeral_secret"\): LWC_SECRET is not set/);
  });

  it("warns once for an allowed in-memory store, and says nothing for a sound setup or outside production", () => {
    expect(logged({ NODE_ENV: "production", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" })).toEqual([
      { level: "warn", message: expect.stringContaining("LWC_ALLOW_MEMORY_STORE=1: sessions are kept in this process's memory") },
    ]);
    expect(logged({ NODE_ENV: "production", LWC_SECRET: SECRET, ...UPSTASH })).toEqual([]);
    expect(logged({ NODE_ENV: "development" })).toEqual([]);
  });

  it("never writes the secret or the store token", () => {
    const text = JSON.stringify([
      ...logged({ NODE_ENV: "production", LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" }),
      ...logged({ NODE_ENV: "production", UPSTASH_REDIS_REST_TOKEN: UPSTASH.UPSTASH_REDIS_REST_TOKEN }),
    ]);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(UPSTASH.UPSTASH_REDIS_REST_TOKEN);
  });
});

describe("refuseBrokenDeployOnVercel", () => {
  const vercel = { VERCEL: "1", NODE_ENV: "production" };
  it("throws on Vercel in production on the in-memory store, and nowhere else", () => {
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, LWC_SECRET: SECRET })).toThrow(/^The in-memory session store cannot run on Vercel/);
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, LWC_SECRET: SECRET, LWC_ALLOW_MEMORY_STORE: "1" })).not.toThrow();
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, LWC_SECRET: SECRET, ...UPSTASH })).not.toThrow();
    // `vercel dev` runs next dev: the in-memory store and a random secret are fine there.
    expect(() => refuseBrokenDeployOnVercel({ VERCEL: "1", NODE_ENV: "development" })).not.toThrow();
    expect(() => refuseBrokenDeployOnVercel({ NODE_ENV: "production" })).not.toThrow();
  });

  it("throws on Vercel in production without LWC_SECRET, naming it; LWC_ALLOW_MEMORY_STORE=1 does not excuse it", () => {
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, ...UPSTASH })).toThrow(/^LWC_SECRET is not set, and on Vercel it must be/);
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, LWC_ALLOW_MEMORY_STORE: "1" })).toThrow(/LWC_SECRET is not set/);
    expect(() => refuseBrokenDeployOnVercel({ ...vercel, LWC_SECRET: " , ", ...UPSTASH })).toThrow(/LWC_SECRET is not set/);
    expect(() => refuseBrokenDeployOnVercel({ ...vercel })).toThrow(/in-memory session store cannot run on Vercel.*LWC_SECRET is not set/);
  });

  it("never writes the store token", () => {
    let message = "";
    try {
      refuseBrokenDeployOnVercel({ ...vercel, UPSTASH_REDIS_REST_TOKEN: UPSTASH.UPSTASH_REDIS_REST_TOKEN });
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/LWC_SECRET is not set/);
    expect(message).not.toContain(UPSTASH.UPSTASH_REDIS_REST_TOKEN);
  });
});

describe("Sign in with ChatGPT on a hosting platform", () => {
  it("says at start that SIWC will not start there (VERCEL=1 with siwc in LWC_SIGN_IN), whatever NODE_ENV", () => {
    const env = { VERCEL: "1", LWC_SIGN_IN: "device, SIWC", LWC_SECRET: SECRET, ...UPSTASH };
    expect(logged(env).filter((line) => line.level === "error").map((line) => line.message)).toEqual([expect.stringContaining("siwc")]);
    expect(logged({ ...env, NODE_ENV: "production" }).some((line) => line.message.includes("LWC_SIGN_IN includes siwc"))).toBe(true);
    expect(logged({ ...env, LWC_SIGN_IN: "device" })).toEqual([]);
    expect(logged({ ...env, VERCEL: undefined })).toEqual([]);
  });
});

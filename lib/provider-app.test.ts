import { afterEach, describe, expect, it, vi } from "vitest";

const SECRET = "provider-app-test-secret-0123456789abcdef";

async function load() {
  vi.resetModules();
  return import("./provider-app");
}

afterEach(() => vi.unstubAllEnvs());

describe("lib/provider-app", () => {
  it("builds one handler from the environment, under /api/provider", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { providerHandler } = await load();
    expect(providerHandler.basePath).toBe("/api/provider");
    const reply = await providerHandler.handler(new Request("http://127.0.0.1:3000/api/provider/session"));
    expect(await reply.json()).toEqual({ status: "unauthenticated" });
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });

  it("mounts the handler at LWC_API_BASE_PATH: the configured path answers, the route folder's own path does not", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    vi.stubEnv("LWC_API_BASE_PATH", "/api/chatgpt/");
    const { providerHandler } = await load();
    expect(providerHandler.basePath).toBe("/api/chatgpt");
    const moved = await providerHandler.handler(new Request("http://127.0.0.1:3000/api/chatgpt/session"));
    expect(await moved.json()).toEqual({ status: "unauthenticated" });
    const old = await providerHandler.handler(new Request("http://127.0.0.1:3000/api/provider/session"));
    expect(old.status).toBe(404);
    await old.arrayBuffer();
  });

  it("maps every variable to an option, with the documented defaults", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { optionsFromEnv } = await load();
    const defaults = optionsFromEnv({});
    expect(defaults.basePath).toBe("/api/provider");
    expect(optionsFromEnv({ LWC_API_BASE_PATH: "/api/chatgpt" }).basePath).toBe("/api/chatgpt");
    expect(defaults).toMatchObject({
      secrets: [],
      allowedOrigins: [],
      sessionTtlMs: 604_800_000,
      enableResponsesProxy: true,
      responsesProxy: { rateLimit: { limit: 30, windowMs: 60_000 }, maxRequestBytes: 4_000_000, maxStreamMs: 290_000 },
      loginRateLimit: { limit: 10, windowMs: 60_000 },
      trustedProxyHops: 1,
      upstream: {},
    });
    expect(defaults.responsesProxy).not.toHaveProperty("allowedModels");
    // The cookie keeps the contract's name (lwc_session) unless LWC_COOKIE_HOST_PREFIX opts in.
    expect(defaults.cookie?.hostPrefix).toBe(false);
    const custom = optionsFromEnv({
      LWC_SECRET: ` ${SECRET} , ${SECRET}-old `,
      LWC_ISSUER_URL: "http://127.0.0.1:4010",
      LWC_CODEX_BASE_URL: "http://127.0.0.1:4010/backend-api/codex",
      LWC_VERIFICATION_URL: "http://127.0.0.1:4010/codex/device",
      LWC_CLIENT_VERSION: "0.170.0",
      LWC_ALLOWED_MODELS: "gpt-6.1-sol, gpt-5.4-mini",
      LWC_ALLOWED_ORIGINS: "https://a.example",
      LWC_SESSION_TTL_SECONDS: "3600",
      LWC_RESPONSES_PROXY: "OFF",
      LWC_RATE_LIMIT_PER_MINUTE: "5",
      LWC_LOGIN_RATE_LIMIT_PER_MINUTE: "50",
      LWC_MAX_REQUEST_BYTES: "2048",
      LWC_TRUSTED_PROXY_HOPS: "0",
      LWC_COOKIE_HOST_PREFIX: "1",
    });
    expect(custom).toMatchObject({
      secrets: [SECRET, `${SECRET}-old`],
      allowedOrigins: ["https://a.example"],
      sessionTtlMs: 3_600_000,
      enableResponsesProxy: false,
      responsesProxy: { rateLimit: { limit: 5 }, allowedModels: ["gpt-6.1-sol", "gpt-5.4-mini"], maxRequestBytes: 2048 },
      loginRateLimit: { limit: 50 },
      trustedProxyHops: 0,
      cookie: { hostPrefix: true },
      clientVersion: "0.170.0",
      upstream: {
        issuer: "http://127.0.0.1:4010",
        codexBaseUrl: "http://127.0.0.1:4010/backend-api/codex",
        verificationUrl: "http://127.0.0.1:4010/codex/device",
      },
    });
  });

  it("names a bad variable without echoing its value", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { optionsFromEnv } = await load();
    expect(() => optionsFromEnv({ LWC_RATE_LIMIT_PER_MINUTE: "lots" })).toThrow(/LWC_RATE_LIMIT_PER_MINUTE/);
    expect(() => optionsFromEnv({ LWC_RESPONSES_PROXY: "maybe" })).toThrow(/LWC_RESPONSES_PROXY/);
    expect(() => optionsFromEnv({ LWC_BASE_PATH: "chat app" })).toThrow(/LWC_BASE_PATH/);
    expect(() => optionsFromEnv({ LWC_API_BASE_PATH: "/chatgpt" })).toThrow(/LWC_API_BASE_PATH/);
    expect(() => optionsFromEnv({ LWC_MAX_STREAM_SECONDS: "0" })).toThrow(/LWC_MAX_STREAM_SECONDS/);
    expect(() => optionsFromEnv({ LWC_COOKIE_HOST_PREFIX: "yes please" })).toThrow(/LWC_COOKIE_HOST_PREFIX/);
    let message = "";
    try {
      optionsFromEnv({ LWC_SESSION_TTL_SECONDS: "-12345" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/LWC_SESSION_TTL_SECONDS/);
    expect(message).not.toContain("12345");
  });

  it("maps the realtime variables (LWC_REALTIME*, LWC_CHATGPT_URL) and names a bad one", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { optionsFromEnv } = await load();
    expect(optionsFromEnv({}).realtime).toEqual({ enabled: true, maxRequestBytes: 65_536, rateLimit: { limit: 12, windowMs: 60_000 } });
    expect(
      optionsFromEnv({
        LWC_REALTIME: "OFF",
        LWC_REALTIME_TRANSPORTS: "codex, vp",
        LWC_REALTIME_VOICE_MODES: "standard",
        LWC_REALTIME_MAX_REQUEST_BYTES: "8192",
        LWC_REALTIME_RATE_LIMIT_PER_MINUTE: "5",
        LWC_ALLOWED_REALTIME_MODELS: "gpt-realtime-1.5",
        LWC_CHATGPT_URL: "http://127.0.0.1:4010",
      }).realtime,
    ).toEqual({
      enabled: false,
      transports: ["codex", "vp"],
      voiceModes: ["standard"],
      maxRequestBytes: 8192,
      rateLimit: { limit: 5, windowMs: 60_000 },
      allowedModels: ["gpt-realtime-1.5"],
      chatgptUrl: "http://127.0.0.1:4010",
    });
    expect(() => optionsFromEnv({ LWC_REALTIME: "maybe" })).toThrow(/LWC_REALTIME/);
    expect(() => optionsFromEnv({ LWC_REALTIME_TRANSPORTS: "codex,pigeon" })).toThrow(/LWC_REALTIME_TRANSPORTS/);
    expect(() => optionsFromEnv({ LWC_REALTIME_VOICE_MODES: "loud" })).toThrow(/LWC_REALTIME_VOICE_MODES/);
    expect(() => optionsFromEnv({ LWC_REALTIME_MAX_REQUEST_BYTES: "0" })).toThrow(/LWC_REALTIME_MAX_REQUEST_BYTES/);
    expect(() => optionsFromEnv({ LWC_REALTIME_RATE_LIMIT_PER_MINUTE: "many" })).toThrow(/LWC_REALTIME_RATE_LIMIT_PER_MINUTE/);
  });

  it("LWC_REALTIME_MODEL is the voice model of the codex transport, and must be on LWC_ALLOWED_REALTIME_MODELS when that is set", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { optionsFromEnv } = await load();
    expect(optionsFromEnv({ LWC_REALTIME_MODEL: " gpt-live-1-codex " }).realtime?.model).toBe("gpt-live-1-codex");
    expect(optionsFromEnv({}).realtime).not.toHaveProperty("model");
    expect(
      optionsFromEnv({ LWC_REALTIME_MODEL: "gpt-live-1-codex", LWC_ALLOWED_REALTIME_MODELS: "gpt-realtime-1.5,gpt-live-1-codex" }).realtime,
    ).toMatchObject({ model: "gpt-live-1-codex", allowedModels: ["gpt-realtime-1.5", "gpt-live-1-codex"] });
    let message = "";
    try {
      optionsFromEnv({ LWC_REALTIME_MODEL: "gpt-live-1-codex", LWC_ALLOWED_REALTIME_MODELS: "gpt-realtime-1.5" });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/LWC_REALTIME_MODEL/);
    expect(message).toMatch(/LWC_ALLOWED_REALTIME_MODELS/);
    expect(message).not.toContain("gpt-live-1-codex");
    // Unset, the default (what codex 0.171.0 sends) is the voice model: a list without it is refused too.
    expect(() => optionsFromEnv({ LWC_ALLOWED_REALTIME_MODELS: "gpt-live-1-codex" })).toThrow(/LWC_REALTIME_MODEL.*gpt-realtime-1\.5/);
    expect(() => optionsFromEnv({ LWC_REALTIME_MODEL: "x".repeat(129) })).toThrow(/LWC_REALTIME_MODEL/);
  });

  it("LWC_INSTRUCTIONS sets the server's instructions, LWC_INSTRUCTIONS_MODE how they apply", async () => {
    vi.stubEnv("LWC_SECRET", SECRET);
    const { optionsFromEnv } = await load();
    const defaults = optionsFromEnv({}).responsesProxy;
    expect(defaults).not.toHaveProperty("instructions");
    expect(defaults?.instructionsMode).toBe("default");
    expect(optionsFromEnv({ LWC_INSTRUCTIONS: "  You work for Acme.\nBe brief.  ", LWC_INSTRUCTIONS_MODE: " Enforce " }).responsesProxy).toMatchObject({
      instructions: "You work for Acme.\nBe brief.",
      instructionsMode: "enforce",
    });
    expect(() => optionsFromEnv({ LWC_INSTRUCTIONS_MODE: "strict" })).toThrow(/LWC_INSTRUCTIONS_MODE/);
  });

  it("refuses a too-short LWC_SECRET at start-up", async () => {
    vi.stubEnv("LWC_SECRET", "short");
    await expect(load()).rejects.toThrow(/at least 32 characters/);
  });
});

import { describe, expect, it } from "vitest";
import clientVersionFile from "./client-version.json";
import { DEFAULT_UPSTREAM, resolveUpstreamConfig } from "./config";

describe("resolveUpstreamConfig", () => {
  it("uses the real provider's values by default", () => {
    const config = resolveUpstreamConfig();
    expect(config).toMatchObject({
      issuer: "https://auth.openai.com",
      codexBaseUrl: "https://chatgpt.com/backend-api/codex",
      verificationUrl: "https://auth.openai.com/codex/device",
      clientId: "app_EMoamEEZ73f0CkXaXp7hrann",
      scope: "openid profile email offline_access",
      originator: "codex_cli_rs",
      clientVersion: clientVersionFile.clientVersion,
      requestTimeoutMs: DEFAULT_UPSTREAM.requestTimeoutMs,
    });
    expect(typeof config.fetch).toBe("function");
  });

  it("takes the client version from client-version.json and names it in the user agent", () => {
    const config = resolveUpstreamConfig();
    expect(config.clientVersion).toBe(clientVersionFile.clientVersion);
    expect(config.userAgent).toBe(`login-with-chatgpt/0.1 (codex_cli_rs/${clientVersionFile.clientVersion} compatible)`);
  });

  it("carries an overridden client version into the user agent, unless the user agent is set too", () => {
    expect(resolveUpstreamConfig({ clientVersion: "0.171.2" }).userAgent).toBe("login-with-chatgpt/0.1 (codex_cli_rs/0.171.2 compatible)");
    expect(resolveUpstreamConfig({ clientVersion: "0.171.2", userAgent: "mine/1" }).userAgent).toBe("mine/1");
  });

  it("derives the verification URL from the overridden issuer and trims trailing slashes", () => {
    const config = resolveUpstreamConfig({ issuer: "http://127.0.0.1:4010/", codexBaseUrl: "http://127.0.0.1:4010/backend-api/codex//" });
    expect(config.issuer).toBe("http://127.0.0.1:4010");
    expect(config.codexBaseUrl).toBe("http://127.0.0.1:4010/backend-api/codex");
    expect(config.verificationUrl).toBe("http://127.0.0.1:4010/codex/device");
  });

  it("keeps an explicit verification URL and ignores undefined overrides", () => {
    const config = resolveUpstreamConfig({ verificationUrl: "https://example.com/device/", clientVersion: undefined });
    expect(config.verificationUrl).toBe("https://example.com/device");
    expect(config.clientVersion).toBe(clientVersionFile.clientVersion);
  });

  it("uses a given fetch implementation", () => {
    const myFetch: typeof fetch = async () => new Response("x");
    expect(resolveUpstreamConfig({ fetch: myFetch }).fetch).toBe(myFetch);
  });

  it.each([
    [{ issuer: "not a url" }, /issuer/],
    [{ codexBaseUrl: "ftp://example.com" }, /codexBaseUrl/],
    [{ clientVersion: "latest" }, /clientVersion/],
    [{ requestTimeoutMs: 0 }, /requestTimeoutMs/],
  ])("rejects an invalid value %j", (overrides, message) => {
    expect(() => resolveUpstreamConfig(overrides)).toThrow(message);
  });
});

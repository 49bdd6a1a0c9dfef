import { afterEach, describe, expect, it, vi } from "vitest";
import { apiRewrites, callbackRedirects } from "./api-rewrites";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

async function nextConfigWith(env: Record<string, string>) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  return (await import("../next.config")).default;
}

describe("LWC_API_BASE_PATH's rewrite onto the route folder app/api/provider", () => {
  it("is not needed at /api/provider", () => {
    expect(apiRewrites("/api/provider")).toEqual([]);
  });

  it("maps every path below the configured one onto the folder (so /responses reaches its static route)", () => {
    expect(apiRewrites("/api/chatgpt")).toEqual([{ source: "/api/chatgpt/:path+", destination: "/api/provider/:path+" }]);
  });

  it("next.config.ts inlines the path for the page and the handler, and asks Next for the rewrite", async () => {
    const moved = await nextConfigWith({ LWC_API_BASE_PATH: "/api/chatgpt/" });
    expect(moved.env).toMatchObject({ LWC_API_BASE_PATH: "/api/chatgpt" });
    expect(await moved.rewrites!()).toEqual([{ source: "/api/chatgpt/:path+", destination: "/api/provider/:path+" }]);

    const unset = await nextConfigWith({ LWC_API_BASE_PATH: "" });
    expect(unset.env).toMatchObject({ LWC_API_BASE_PATH: "/api/provider" });
    expect(await unset.rewrites!()).toEqual([]);
  });

  it("keeps LWC_BASE_PATH as Next's basePath beside it (Next puts the rewrite under the basePath itself)", async () => {
    const both = await nextConfigWith({ LWC_BASE_PATH: "/chat-app", LWC_API_BASE_PATH: "/api/chatgpt" });
    expect(both.basePath).toBe("/chat-app");
    expect(both.env).toMatchObject({ LWC_BASE_PATH: "/chat-app", LWC_API_BASE_PATH: "/api/chatgpt" });
    expect(await both.rewrites!()).toEqual([{ source: "/api/chatgpt/:path+", destination: "/api/provider/:path+" }]);
    expect(await both.redirects!()).toEqual([{ source: "/auth/callback", destination: "/chat-app/auth/callback", basePath: false, permanent: false }]);
  });

  it("refuses a bad path when the build reads next.config.ts", async () => {
    await expect(nextConfigWith({ LWC_API_BASE_PATH: "/chatgpt" })).rejects.toThrow(/^LWC_API_BASE_PATH must be a path under \/api\//);
  });
});

describe("Sign in with ChatGPT's callback at the site's root", () => {
  it("needs no redirect without LWC_BASE_PATH (app/auth/callback is /auth/callback)", async () => {
    expect(callbackRedirects("")).toEqual([]);
    expect(await (await nextConfigWith({ LWC_BASE_PATH: "" })).redirects!()).toEqual([]);
  });

  it("is sent under LWC_BASE_PATH by one temporary redirect outside it (Next allows no internal rewrite out of its basePath)", () => {
    expect(callbackRedirects("/chat-app")).toEqual([{ source: "/auth/callback", destination: "/chat-app/auth/callback", basePath: false, permanent: false }]);
  });
});

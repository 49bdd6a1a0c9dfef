import { describe, expect, it, vi } from "vitest";
import { API_ROUTE_FOLDER, DEFAULT_BASE_PATH, normalizeApiBasePath, normalizeAppBasePath, normalizeBasePath } from "./base-path";

describe("LWC_BASE_PATH", () => {
  it("is the site root when unset, blank or /", () => {
    for (const value of [undefined, "", "  ", "/"]) expect(normalizeAppBasePath(value)).toBe("");
  });

  it("keeps one leading slash and drops trailing ones", () => {
    expect(normalizeAppBasePath("/chat-app")).toBe("/chat-app");
    expect(normalizeAppBasePath(" /chat-app/ ")).toBe("/chat-app");
    expect(normalizeAppBasePath("/tools/chat_v2.1~x")).toBe("/tools/chat_v2.1~x");
  });

  it("refuses what is not a plain path, without echoing it", () => {
    for (const bad of ["chat-app", "/chat app", "/chat?x=1", "//evil.example", "/a//b", "https://x.test/app", "/%2e%2e", "/..", "/app/."]) {
      expect(() => normalizeAppBasePath(bad)).toThrow(/^LWC_BASE_PATH must be a path such as \/chat-app/);
    }
  });

  it("puts the session service at {LWC_BASE_PATH}/api/provider (the root in tests)", () => {
    expect(DEFAULT_BASE_PATH).toBe("/api/provider");
    expect(normalizeBasePath(undefined)).toBe("/api/provider");
    expect(normalizeBasePath("/chat-app/api/provider/")).toBe("/chat-app/api/provider");
  });
});

describe("LWC_API_BASE_PATH", () => {
  it("is /api/provider (the route folder) when unset or blank", () => {
    for (const value of [undefined, "", "  "]) expect(normalizeApiBasePath(value)).toBe("/api/provider");
    expect(API_ROUTE_FOLDER).toBe("/api/provider");
  });

  it("keeps a path under /api/ and drops trailing slashes", () => {
    expect(normalizeApiBasePath("/api/chatgpt")).toBe("/api/chatgpt");
    expect(normalizeApiBasePath(" /api/chatgpt/ ")).toBe("/api/chatgpt");
    expect(normalizeApiBasePath("/api/v2/sign-in_with.chatgpt~x")).toBe("/api/v2/sign-in_with.chatgpt~x");
  });

  it("refuses a path outside /api/ or not plain, without echoing it", () => {
    for (const bad of ["/", "/api", "/chatgpt", "api/chatgpt", "/api/chat gpt", "/api/x?y=1", "/api//x", "/api/..", "/api/./x", "https://x.test/api/x", "/api/%2e%2e"]) {
      expect(() => normalizeApiBasePath(bad), bad).toThrow(/^LWC_API_BASE_PATH must be a path under \/api\/ such as \/api\/chatgpt/);
    }
  });

  it("moves the page client's calls to {LWC_BASE_PATH}{LWC_API_BASE_PATH}", async () => {
    vi.stubEnv("LWC_BASE_PATH", "/chat-app");
    vi.stubEnv("LWC_API_BASE_PATH", "/api/chatgpt/");
    vi.resetModules();
    try {
      const moved = await import("./base-path");
      expect(moved.API_BASE_PATH).toBe("/api/chatgpt");
      expect(moved.DEFAULT_BASE_PATH).toBe("/chat-app/api/chatgpt");
      expect(moved.normalizeBasePath(undefined)).toBe("/chat-app/api/chatgpt");
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

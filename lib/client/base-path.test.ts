import { describe, expect, it } from "vitest";
import { DEFAULT_BASE_PATH, normalizeAppBasePath, normalizeBasePath } from "./base-path";

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
    for (const bad of ["chat-app", "/chat app", "/chat?x=1", "//evil.example", "/a//b", "https://x.test/app", "/%2e%2e"]) {
      expect(() => normalizeAppBasePath(bad)).toThrow(/^LWC_BASE_PATH must be a path such as \/chat-app/);
    }
  });

  it("puts the session service at {LWC_BASE_PATH}/api/provider (the root in tests)", () => {
    expect(DEFAULT_BASE_PATH).toBe("/api/provider");
    expect(normalizeBasePath(undefined)).toBe("/api/provider");
    expect(normalizeBasePath("/chat-app/api/provider/")).toBe("/chat-app/api/provider");
  });
});

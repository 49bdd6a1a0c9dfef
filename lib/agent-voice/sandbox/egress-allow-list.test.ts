import { describe, expect, it } from "vitest";
import { formatTarget, isAllowed, parseAbsoluteUrl, parseAllowEntry, parseAuthority, targetOfUrl, uniqueTargets } from "./egress-allow-list";

describe("allow-list entries", () => {
  it("takes a URL's host and port (the scheme's default when none is written)", () => {
    expect(parseAllowEntry("https://chatgpt.com/backend-api/codex")).toEqual({ host: "chatgpt.com", port: 443 });
    expect(parseAllowEntry("http://127.0.0.1:4010/backend-api/")).toEqual({ host: "127.0.0.1", port: 4010 });
    expect(parseAllowEntry("wss://api.openai.com")).toEqual({ host: "api.openai.com", port: 443 });
    expect(parseAllowEntry("HTTP://Auth.Example.COM")).toEqual({ host: "auth.example.com", port: 80 });
    expect(parseAllowEntry("http://[::1]:4010")).toEqual({ host: "::1", port: 4010 });
  });

  it("takes host:port as written, IPv6 in brackets", () => {
    expect(parseAllowEntry(" eu.chatgpt.com:443 ")).toEqual({ host: "eu.chatgpt.com", port: 443 });
    expect(parseAllowEntry("[::1]:8443")).toEqual({ host: "::1", port: 8443 });
  });

  it("refuses anything else, saying what it wanted", () => {
    for (const entry of ["chatgpt.com", "chatgpt.com:0", "chatgpt.com:65536", "chatgpt.com:https", "::1:443", "file:///etc/passwd", "ftp://host", "*.openai.com:443", "a b:80", ""]) {
      expect(() => parseAllowEntry(entry), entry).toThrow(/not (a URL|an http)/);
    }
  });

  it("targetOfUrl accepts only http(s) and ws(s) URLs with a host", () => {
    expect(targetOfUrl("ws://127.0.0.1:9/sideband")).toEqual({ host: "127.0.0.1", port: 9 });
    expect(() => targetOfUrl("javascript:alert(1)")).toThrow(/not an http/);
    expect(() => targetOfUrl("nonsense")).toThrow(/not a URL/);
  });

  it("formats and de-duplicates targets", () => {
    expect(formatTarget({ host: "::1", port: 443 })).toBe("[::1]:443");
    expect(formatTarget({ host: "chatgpt.com", port: 443 })).toBe("chatgpt.com:443");
    const list = ["https://chatgpt.com/backend-api/codex", "https://chatgpt.com/backend-api/", "https://auth.openai.com"].map(parseAllowEntry);
    expect(uniqueTargets(list).map(formatTarget)).toEqual(["chatgpt.com:443", "auth.openai.com:443"]);
  });
});

describe("request targets", () => {
  it("a CONNECT authority needs a host and a port", () => {
    expect(parseAuthority("chatgpt.com:443")).toEqual({ host: "chatgpt.com", port: 443 });
    expect(parseAuthority("CHATGPT.com:443")).toEqual({ host: "chatgpt.com", port: 443 });
    expect(parseAuthority("[::1]:6379")).toEqual({ host: "::1", port: 6379 });
    for (const bad of ["chatgpt.com", ":443", "chatgpt.com:", "user@chatgpt.com:443", "chatgpt.com:443/x", "[::1:443", "chatgpt.com:+443", "chat gpt.com:443", "http://chatgpt.com:443"]) {
      expect(parseAuthority(bad), bad).toBeUndefined();
    }
  });

  it("an absolute-form URL is http or ws, without user info", () => {
    expect(parseAbsoluteUrl("http://127.0.0.1:4010/backend-api/codex/models?client_version=1")).toEqual({ host: "127.0.0.1", port: 4010 });
    expect(parseAbsoluteUrl("http://chatgpt.com/x")).toEqual({ host: "chatgpt.com", port: 80 });
    expect(parseAbsoluteUrl("ws://127.0.0.1:4010/v1/realtime")).toEqual({ host: "127.0.0.1", port: 4010 });
    for (const bad of ["/backend-api/codex/models", "https://chatgpt.com/", "ftp://127.0.0.1/", "http://user:pass@127.0.0.1:4010/", "file:///etc/passwd", "chatgpt.com:443"]) {
      expect(parseAbsoluteUrl(bad), bad).toBeUndefined();
    }
  });
});

describe("isAllowed", () => {
  const allow = ["https://chatgpt.com/backend-api/codex", "https://api.openai.com", "http://127.0.0.1:4010"].map(parseAllowEntry);

  it("lets through exactly the listed host and port", () => {
    expect(isAllowed(allow, { host: "chatgpt.com", port: 443 })).toBe(true);
    expect(isAllowed(allow, { host: "api.openai.com", port: 443 })).toBe(true);
    expect(isAllowed(allow, { host: "127.0.0.1", port: 4010 })).toBe(true);
  });

  it("refuses another port, a subdomain, a suffix, a trailing dot, another spelling of the address, and everything else", () => {
    for (const target of [
      { host: "chatgpt.com", port: 80 },
      { host: "chatgpt.com", port: 22 },
      { host: "evil.chatgpt.com", port: 443 },
      { host: "chatgpt.com.evil.example", port: 443 },
      { host: "notchatgpt.com", port: 443 },
      { host: "chatgpt.com.", port: 443 },
      { host: "127.0.0.1", port: 6379 },
      { host: "localhost", port: 4010 },
      { host: "127.0.0.2", port: 4010 },
      { host: "::1", port: 4010 },
      { host: "169.254.169.254", port: 80 },
    ]) {
      expect(isAllowed(allow, target), formatTarget(target)).toBe(false);
    }
  });

  it("an empty list refuses everything", () => {
    expect(isAllowed([], { host: "chatgpt.com", port: 443 })).toBe(false);
  });
});

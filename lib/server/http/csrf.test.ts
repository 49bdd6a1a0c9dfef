import { describe, expect, it } from "vitest";
import { checkOrigin } from "./csrf";
import { requestOrigin } from "./request-origin";

const allowed = new Set(["https://app.example.com"]);

function post(url: string, headers: Record<string, string>): Request {
  return new Request(url, { method: "POST", headers });
}

describe("requestOrigin", () => {
  it("uses Host, not request.url (Next.js rewrites its host to localhost)", () => {
    expect(requestOrigin(post("http://localhost:3000/x", { host: "127.0.0.1:3000" }))).toBe("http://127.0.0.1:3000");
  });

  it("prefers X-Forwarded-Host / X-Forwarded-Proto and drops default ports", () => {
    const request = post("http://localhost:3000/x", {
      host: "internal:3000",
      "x-forwarded-host": "Public.Example.org:443, proxy",
      "x-forwarded-proto": "https",
    });
    expect(requestOrigin(request)).toBe("https://public.example.org");
  });

  it("refuses a host with a path or credentials", () => {
    expect(requestOrigin(post("http://h/", { host: "evil.example/x" }))).toBeNull();
    expect(requestOrigin(post("http://h/", { host: "user:pw@h" }))).toBeNull();
  });
});

describe("checkOrigin", () => {
  const at = (origin: string | undefined) =>
    checkOrigin(post("http://localhost:3000/api", { host: "127.0.0.1:3000", ...(origin ? { origin } : {}) }), allowed);

  it("passes no Origin and the same origin", () => {
    expect(at(undefined).kind).toBe("same-origin-or-absent");
    expect(at("http://127.0.0.1:3000").kind).toBe("same-origin-or-absent");
  });

  it("passes allowed origins as cross-origin", () => {
    expect(at("https://app.example.com")).toEqual({ kind: "allowed-cross-origin", origin: "https://app.example.com" });
  });

  it("rejects everything else, keeping the header value as sent", () => {
    for (const origin of ["null", "http://localhost:3000", "https://app.example.com.evil.net", "garbage", "file://"]) {
      expect(at(origin)).toEqual({ kind: "rejected", origin });
    }
  });
});

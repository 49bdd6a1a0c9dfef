import { describe, expect, it } from "vitest";
import { createRouter } from "./router";

const ok = async () => new Response("ok");
const router = createRouter("/api/provider", [
  { pattern: "/login", methods: { POST: ok } },
  { pattern: "/realtime/app-server/:id/events", methods: { GET: ok } },
]);

const match = (method: string, path: string) => router.match(new Request(`http://h${path}`, { method }));

describe("createRouter", () => {
  it("matches exact paths and methods", () => {
    const found = match("POST", "/api/provider/login");
    expect(found.kind === "found" && found.handler).toBe(ok);
  });

  it("reports a known path with another method (405) with its Allow value", () => {
    expect(match("GET", "/api/provider/login")).toMatchObject({ kind: "found", handler: undefined, allow: "POST, OPTIONS" });
  });

  it("extracts :params for future realtime routes", () => {
    expect(match("GET", "/api/provider/realtime/app-server/live%201/events")).toMatchObject({
      kind: "found",
      params: { id: "live 1" },
    });
  });

  it("does not match unknown paths, trailing slashes or other prefixes", () => {
    for (const path of ["/api/provider/nope", "/api/provider/login/", "/api/providerx/login", "/login", "/api/provider"]) {
      expect(match("POST", path).kind, path).toBe("not_found");
    }
  });
});

/**
 * The seam that points `@vercel/sandbox` at a configurable API: a real HTTP server stands for the
 * API, and the fetch given to the SDK must send it exactly what was addressed to Vercel's base URL,
 * and nothing else anywhere.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERCEL_SANDBOX_API_URL } from "./defaults";
import { vercelSandboxApi, vercelSandboxFetch } from "./vercel-sandbox-api";

let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""}`);
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("vercelSandboxFetch", () => {
  it("sends what the SDK addresses to Vercel's API to the configured base instead (path, query, method, headers)", async () => {
    seen.length = 0;
    const sandboxFetch = vercelSandboxFetch(`${base}/api/`);
    await sandboxFetch(`${DEFAULT_VERCEL_SANDBOX_API_URL}/v2/sandboxes?teamId=team_1&tags=app%3Alwc`, { headers: { authorization: "Bearer t" } });
    await sandboxFetch(new URL(`${DEFAULT_VERCEL_SANDBOX_API_URL}/v3/sandboxes`), { method: "POST", body: "{}" });
    await sandboxFetch(new Request(`${DEFAULT_VERCEL_SANDBOX_API_URL}/v2/sandboxes/sessions/s1/stop`, { method: "POST" }));
    expect(seen).toEqual([
      "GET /api/v2/sandboxes?teamId=team_1&tags=app%3Alwc Bearer t",
      "POST /api/v3/sandboxes ",
      "POST /api/v2/sandboxes/sessions/s1/stop ",
    ]);
  });

  it("refuses any other address (fails closed), also one that merely starts like the API's", async () => {
    seen.length = 0;
    const sandboxFetch = vercelSandboxFetch(base);
    await expect(sandboxFetch("https://api.vercel.com/v1/projects/p/token")).rejects.toThrow(/outside the Sandbox API \(api\.vercel\.com\)/);
    await expect(sandboxFetch("https://vercel.com/apix/v2/sandboxes")).rejects.toThrow(/outside the Sandbox API/);
    await expect(sandboxFetch("https://vercel.com.evil.example/api/v2")).rejects.toThrow(/outside the Sandbox API/);
    expect(seen).toEqual([]);
  });
});

describe("vercelSandboxApi", () => {
  it("passes VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID on; without VERCEL_TOKEN nothing (the SDK then uses Vercel's OIDC token)", () => {
    expect(vercelSandboxApi(base, { VERCEL_TOKEN: " tok ", VERCEL_TEAM_ID: "team_1", VERCEL_PROJECT_ID: "prj_1" })).toMatchObject({ token: "tok", teamId: "team_1", projectId: "prj_1" });
    const oidc = vercelSandboxApi(base, { VERCEL_PROJECT_ID: "prj_1", VERCEL_OIDC_TOKEN: "jwt" });
    expect(Object.keys(oidc)).toEqual(["fetch"]);
  });

  it("refuses VERCEL_TOKEN without its team and project, naming what is missing and never the token", () => {
    expect(() => vercelSandboxApi(base, { VERCEL_TOKEN: "secret-token-value", VERCEL_TEAM_ID: "team_1" })).toThrow(/^VERCEL_TOKEN is set without VERCEL_PROJECT_ID:/);
    expect(() => vercelSandboxApi(base, { VERCEL_TOKEN: "secret-token-value" })).toThrow(/without VERCEL_TEAM_ID and VERCEL_PROJECT_ID/);
    try {
      vercelSandboxApi(base, { VERCEL_TOKEN: "secret-token-value" });
    } catch (error) {
      expect(String(error)).not.toContain("secret-token-value");
    }
  });
});

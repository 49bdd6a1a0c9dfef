/**
 * Sign in with ChatGPT through the real Next.js server (`next start`): the start route in the API's
 * catch-all, the callback's own route file at the site's root (app/auth/callback), and, in the
 * base-path build (`npm run build:base-path`: LWC_BASE_PATH=/chat-app, LWC_API_BASE_PATH=/api/chatgpt),
 * the redirect that sends `/auth/callback` at the root on to it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { decide } from "@/mock-upstream/siwc/test-flow";
import { startNextServer, type NextServer } from "@/test-support/next-server";
import { TEST_SECRET } from "./cluster";

/** A browser's cookies for one host, and no redirect followed by itself. */
function cookieBrowser() {
  const cookies = new Map<string, string>();
  return async (url: string, init: RequestInit = {}) => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const reply = await fetch(url, { ...init, redirect: "manual", headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } });
    for (const line of reply.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return reply;
  };
}

async function signInThrough(server: NextServer, appPath: string, apiPath: string) {
  const browser = cookieBrowser();
  const started = await browser(`${server.url}${appPath}${apiPath}/siwc/start`);
  expect(started.status).toBe(302);
  const authorize = new URL(started.headers.get("location")!);
  expect(authorize.searchParams.get("redirect_uri")).toBe(`${server.url}/auth/callback`);
  const callback = await decide(authorize.href, "approve");
  expect(`${callback.origin}${callback.pathname}`).toBe(`${server.url}/auth/callback`);
  let finished = await browser(callback.href);
  if (appPath !== "") {
    // Under a basePath Next sends the root's /auth/callback on to {basePath}/auth/callback, query and all.
    expect(finished.status).toBe(307);
    const moved = new URL(finished.headers.get("location")!, server.url);
    expect(moved.pathname).toBe(`${appPath}/auth/callback`);
    expect([...moved.searchParams]).toEqual([...callback.searchParams]);
    finished = await browser(moved.href);
  }
  expect(finished.status).toBe(303);
  expect(finished.headers.get("location")).toBe(`${appPath}/`);
  const session = await browser(`${server.url}${appPath}${apiPath}/session`);
  expect(await session.json()).toMatchObject({ status: "authenticated", signIn: "siwc", siwc: { planUsage: true } });
}

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
});
afterAll(async () => {
  await mock?.close();
});

const siwcEnv = () => ({
  LWC_SECRET: TEST_SECRET,
  LWC_ISSUER_URL: mock.issuer,
  LWC_CODEX_BASE_URL: mock.codexBaseUrl,
  LWC_SIGN_IN: "device,siwc",
  LWC_SIWC_ISSUER: mock.siwcIssuer,
  LWC_SIWC_API_BASE: mock.siwcApiBase,
});

describe("Sign in with ChatGPT under next start", () => {
  let server: NextServer;
  beforeAll(async () => {
    server = await startNextServer(siwcEnv());
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("starts at /api/provider/siwc/start and finishes at /auth/callback", async () => {
    await signInThrough(server, "", "/api/provider");
  });

  it("answers a used or foreign state with 400 siwc_state_invalid from the callback route", async () => {
    const reply = await fetch(`${server.url}/auth/callback?state=unknown&code=x`);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: "siwc_state_invalid" });
  });
});

describe("Sign in with ChatGPT in the base-path build", () => {
  let server: NextServer;
  beforeAll(async () => {
    server = await startNextServer({ ...siwcEnv(), LWC_DIST_DIR: ".next-chat-app", LWC_BASE_PATH: "/chat-app", LWC_API_BASE_PATH: "/api/chatgpt" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("reaches the callback at the site's root and sends the browser to /chat-app/", async () => {
    await signInThrough(server, "/chat-app", "/api/chatgpt");
  });
});

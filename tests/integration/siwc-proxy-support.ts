/**
 * A Sign in with ChatGPT session for the proxy tests, made through the real flow over HTTP:
 * GET {base}/siwc/start, the mock's consent page (its form), the app's /auth/callback. Nothing is
 * written into the store behind the handler's back.
 */
import { decide } from "@/mock-upstream/siwc/test-flow";
import type { MockUpstream } from "@/mock-upstream/server";
import { handlerOptionsFor, type Harness, type HarnessOptions, type TestClient } from "./harness";

/** The handler options of a server offering SIWC against the mock (device code stays on). */
export function siwcHandlerOptions(mock: MockUpstream, extra: NonNullable<HarnessOptions["handler"]> = {}) {
  return {
    ...extra,
    signIn: { device: true, siwc: { issuer: mock.siwcIssuer, apiBase: mock.siwcApiBase } },
  } satisfies Parameters<typeof handlerOptionsFor>[3];
}

function setCookies(response: Response, jar: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const pair = line.split(";")[0]!;
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/**
 * Signs a new client in with "Continue with ChatGPT": approve (plan usage granted) or identity only.
 * Throws unless the callback signed the browser in.
 */
export async function signInWithSiwc(harness: Harness, action: "approve" | "identity_only" = "approve"): Promise<TestClient> {
  const client = harness.client();
  const jar = new Map<string, string>();
  const start = await fetch(harness.url("/siwc/start"), { redirect: "manual" });
  setCookies(start, jar);
  const authorize = start.headers.get("location");
  if (start.status !== 302 || !authorize) throw new Error(`siwc start: ${start.status} ${await start.text()}`);
  const callback = await decide(authorize, action);
  const done = await fetch(callback, { redirect: "manual", headers: { cookie: cookieHeader(jar) } });
  setCookies(done, jar);
  await done.body?.cancel();
  const session = jar.get(client.cookieName);
  if (done.status !== 303 || !session) throw new Error(`siwc callback: ${done.status} ${done.headers.get("location")}`);
  client.cookie = decodeURIComponent(session);
  const state = (await client.get("/session")).json<{ status: string; signIn?: string }>();
  if (state.status !== "authenticated" || state.signIn !== "siwc") throw new Error(`not signed in with SIWC: ${JSON.stringify(state)}`);
  return client;
}

/** The page's session API keeps the tab's login nonce: its own pending login resumes, a foreign one does not. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSessionApi } from "@/lib/client/session-api";
import { BASE, createEvidence, findLeakedTokens, sameLogin, startHarness, type Harness } from "./harness";

const evidence = createEvidence();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ evidence });
});
afterAll(async () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
  await h.close();
});

/** A browser's cookie jar shared by its tabs (the session cookie only). */
function cookieJarFetch(jar: { cookie?: string }): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (jar.cookie) headers.set("cookie", jar.cookie);
    const response = await fetch(new URL(String(input), h.served.url), { ...init, headers });
    for (const line of response.headers.getSetCookie()) jar.cookie = line.split(";")[0];
    return response;
  };
}

it("a tab resumes its own pending login; another tab with the same cookie reads signed out and starts its own", async () => {
  const jar: { cookie?: string } = {};
  const tab = createSessionApi({ basePath: BASE, fetch: cookieJarFetch(jar) });
  const started = await tab.login();
  expect(started.status).toBe("pending");
  expect(await tab.getSession()).toEqual(sameLogin(started));
  expect((await tab.status()).status).toBe("pending");

  const otherTab = createSessionApi({ basePath: BASE, fetch: cookieJarFetch(jar) });
  expect(await otherTab.getSession()).toEqual({ status: "unauthenticated" });
  expect(await otherTab.status()).toEqual({ status: "unauthenticated" });
  const own = await otherTab.login();
  expect(own.status).toBe("pending");
  expect(own.status === "pending" && started.status === "pending" && own.userCode !== started.userCode).toBe(true);
});

it("the page never shows a pending login started with the cookie alone (a planted cookie); signing in starts its own", async () => {
  // Someone starts a login without the nonce and plants its cookie in the victim's browser.
  const planted = await fetch(h.url("/login"), { method: "POST" });
  const plantedState = (await planted.json()) as { userCode: string };
  const jar: { cookie?: string } = { cookie: planted.headers.getSetCookie()[0]!.split(";")[0] };
  const page = createSessionApi({ basePath: BASE, fetch: cookieJarFetch(jar) });
  const polls = h.mock.requests({ path: "/api/accounts/deviceauth/token" }).length;
  expect(await page.getSession()).toEqual({ status: "unauthenticated" });
  expect(await page.status()).toEqual({ status: "unauthenticated" });
  expect(h.mock.requests({ path: "/api/accounts/deviceauth/token" }).length).toBe(polls);
  const own = await page.login();
  expect(own.status === "pending" && own.userCode !== plantedState.userCode).toBe(true);
  expect(jar.cookie).not.toBe(planted.headers.getSetCookie()[0]!.split(";")[0]);
  expect(await page.getSession()).toEqual(sameLogin(own));
});

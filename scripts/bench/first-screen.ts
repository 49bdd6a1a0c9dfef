/**
 * `npm run bench:first-screen` (part of `npm run bench`): the JavaScript each screen makes the
 * browser download, measured in Chromium against the production build. Every script response is
 * summed, raw and gzipped (level 6, what `next start` and Vercel send at most): the signed-out
 * screen; the chat screen as a signed-in person opens it (a fresh browser with the session cookie),
 * counting the scripts the first screen does not load; and what signing in adds (the device code's
 * screen, which fetches the chat's code while it waits, then the chat). Each screen's figure has its
 * target beside it; a page of no code of ours (a 404) shows what Next.js and React cost on their
 * own. Prints numbers; asserts nothing.
 */
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "@playwright/test";
import { startNextServer } from "../../test-support/next-server";
import { mockControl, startMockProcess } from "./mock-process";
import { formatTable } from "./stats";

const SECRET = "benchmark-secret-0123456789abcdefghijklmnop";

interface Script {
  url: string;
  raw: number;
  gzip: number;
}

interface ScriptTotals {
  files: number;
  raw: number;
  gzip: number;
}

function totalsOf(scripts: Script[]): ScriptTotals {
  return {
    files: scripts.length,
    raw: scripts.reduce((sum, script) => sum + script.raw, 0),
    gzip: scripts.reduce((sum, script) => sum + script.gzip, 0),
  };
}

/**
 * Collects every script the page asks for from now on; `take()` waits for their bodies and returns
 * them, then starts over. Counted at the request, so a script still on its way is not missed.
 */
function recordScripts(page: Page) {
  let seen: Promise<Script | undefined>[] = [];
  page.on("request", (request) => {
    if (request.resourceType() !== "script") return;
    seen.push(
      request
        .response()
        .then((response) => response?.body())
        .then((body) => (body ? { url: request.url(), raw: body.length, gzip: gzipSync(body, { level: 6 }).length } : undefined))
        .catch(() => undefined),
    );
  });
  return async (): Promise<Script[]> => {
    const scripts = (await Promise.all(seen)).filter((script): script is Script => script !== undefined);
    seen = [];
    return scripts;
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Gzipped JavaScript each screen may make the browser download. */
const TARGET_KB = { firstScreen: 120, chat: 350 };

function target(totals: ScriptTotals, limitKb: number): string {
  return `≤ ${limitKb} KB gzipped: ${totals.gzip <= limitKb * 1024 ? "met" : "not met"}`;
}

function row(screen: string, totals: ScriptTotals, targetText = ""): string[] {
  return [screen, String(totals.files), kb(totals.raw), kb(totals.gzip), targetText];
}

async function main(): Promise<void> {
  const mock = await startMockProcess();
  const cleanups: (() => Promise<unknown>)[] = [async () => mock.child.kill("SIGTERM")];
  try {
    const app = await startNextServer({ LWC_ISSUER_URL: mock.url, LWC_CODEX_BASE_URL: `${mock.url}/backend-api/codex`, LWC_SECRET: SECRET });
    cleanups.push(() => app.stop());
    const browser = await chromium.launch({ executablePath: process.env.E2E_CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
    cleanups.push(() => browser.close());
    // A path no route answers: Next.js's own 404 page, which loads the framework and nothing of ours.
    const bare = await browser.newPage();
    const takeBare = recordScripts(bare);
    await bare.goto(`${app.url}/bench-page-that-does-not-exist`, { waitUntil: "networkidle" });
    const framework = totalsOf(await takeBare());
    await bare.close();

    const page = await browser.newPage();
    const take = recordScripts(page);

    await page.goto(app.url, { waitUntil: "networkidle" });
    await page.getByTestId("sign-in-button").waitFor();
    const signedOutScripts = await take();
    const signedOut = totalsOf(signedOutScripts);

    await page.getByTestId("sign-in-button").click();
    const userCode = (await page.getByTestId("user-code").innerText()).trim();
    await mockControl(mock.url, "/__mock/approve", { userCode, account: { accountId: "acct_bench_ui", email: "bench-ui@example.com" } });
    await page.getByRole("textbox").first().waitFor({ timeout: 30_000 });
    const signingInScripts = await take();
    const signingIn = totalsOf(signingInScripts);

    // The chat screen as a signed-in person opens it: a fresh browser (no cache) with the session cookie.
    const signedIn = await browser.newContext();
    await signedIn.addCookies(await page.context().cookies());
    const chatPage = await signedIn.newPage();
    const takeChat = recordScripts(chatPage);
    await chatPage.goto(app.url);
    await chatPage.getByRole("textbox").first().waitFor({ timeout: 30_000 });
    await chatPage.waitForLoadState("networkidle"); // anything the chat fetches once shown counts too
    const chatScripts = await takeChat();
    await signedIn.close();
    const firstScreenUrls = new Set(signedOutScripts.map((script) => script.url));
    const chat = totalsOf(chatScripts.filter((script) => !firstScreenUrls.has(script.url)));

    console.log(
      formatTable([
        ["Screen", "Scripts", "JavaScript (raw)", "JavaScript (gzip)", "Target"],
        row("Next.js and React alone (a 404 page)", framework),
        row("Signed out (first screen)", signedOut, target(signedOut, TARGET_KB.firstScreen)),
        row("Chat screen opened signed in, beyond the first screen", chat, target(chat, TARGET_KB.chat)),
        row("Added by signing in (code screen, then chat)", signingIn),
        row("Both: the first screen, then signing in", totalsOf([...signedOutScripts, ...signingInScripts])),
      ]),
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * `npm run bench:first-screen` (part of `npm run bench`): the JavaScript each screen makes the
 * browser download, measured in Chromium against the production build. Every script response is
 * summed, raw and gzipped (level 6, what `next start` and Vercel send at most), first for the
 * signed-out screen, then for what signing in adds (the device code's screen and the chat, until
 * the network is idle), each beside its target. A page of no code of ours (a 404) shows what
 * Next.js and React cost on their own. Prints numbers; asserts nothing.
 */
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "@playwright/test";
import { startNextServer } from "../../test-support/next-server";
import { mockControl, startMockProcess } from "./mock-process";
import { formatTable } from "./stats";

const SECRET = "benchmark-secret-0123456789abcdefghijklmnop";

interface ScriptTotals {
  files: number;
  raw: number;
  gzip: number;
}

/** Collects every script the page downloads from now on; `take()` returns the totals so far and starts over. */
function recordScripts(page: Page) {
  let seen: Promise<Buffer | undefined>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    seen.push(response.body().catch(() => undefined));
  });
  return async (): Promise<ScriptTotals> => {
    const bodies = (await Promise.all(seen)).filter((body): body is Buffer => body !== undefined);
    seen = [];
    return {
      files: bodies.length,
      raw: bodies.reduce((sum, body) => sum + body.length, 0),
      gzip: bodies.reduce((sum, body) => sum + gzipSync(body, { level: 6 }).length, 0),
    };
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
    const framework = await takeBare();
    await bare.close();

    const page = await browser.newPage();
    const take = recordScripts(page);

    await page.goto(app.url, { waitUntil: "networkidle" });
    await page.getByTestId("sign-in-button").waitFor();
    const signedOut = await take();

    await page.getByTestId("sign-in-button").click();
    const userCode = (await page.getByTestId("user-code").innerText()).trim();
    await mockControl(mock.url, "/__mock/approve", { userCode, account: { accountId: "acct_bench_ui", email: "bench-ui@example.com" } });
    await page.getByRole("textbox").first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    const chat = await take();

    const both = { files: signedOut.files + chat.files, raw: signedOut.raw + chat.raw, gzip: signedOut.gzip + chat.gzip };
    console.log(
      formatTable([
        ["Screen", "Scripts", "JavaScript (raw)", "JavaScript (gzip)", "Target"],
        row("Next.js and React alone (a 404 page)", framework),
        row("Signed out (first screen)", signedOut, target(signedOut, TARGET_KB.firstScreen)),
        row("Added by signing in (chat screen)", chat, target(chat, TARGET_KB.chat)),
        row("Both", both),
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

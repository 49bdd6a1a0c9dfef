/**
 * `npm run bench:first-screen` (part of `npm run bench`): the JavaScript each screen makes the
 * browser download, measured in Chromium against the production build. Every script response is
 * summed, raw and gzipped (level 6, what `next start` and Vercel send at most), first for the
 * signed-out screen, then for what signing in adds. Prints numbers; asserts nothing.
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

async function main(): Promise<void> {
  const mock = await startMockProcess();
  const cleanups: (() => Promise<unknown>)[] = [async () => mock.child.kill("SIGTERM")];
  try {
    const app = await startNextServer({ LWC_ISSUER_URL: mock.url, LWC_CODEX_BASE_URL: `${mock.url}/backend-api/codex`, LWC_SECRET: SECRET });
    cleanups.push(() => app.stop());
    const browser = await chromium.launch({ executablePath: process.env.E2E_CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
    cleanups.push(() => browser.close());
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

    const rows: [string, string, string, string][] = [["Screen", "Scripts", "JavaScript (raw)", "JavaScript (gzip)"]];
    rows.push(["Signed out (first screen)", String(signedOut.files), kb(signedOut.raw), kb(signedOut.gzip)]);
    rows.push(["Added by signing in (chat)", String(chat.files), kb(chat.raw), kb(chat.gzip)]);
    rows.push(["Both", String(signedOut.files + chat.files), kb(signedOut.raw + chat.raw), kb(signedOut.gzip + chat.gzip)]);
    console.log(formatTable(rows));
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

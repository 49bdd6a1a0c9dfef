import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page, TestInfo } from "@playwright/test";

const DOCS_SCREENSHOTS_DIR = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

/** `npm run screenshots` sets this to refresh the README's pictures; a plain test run leaves docs/ alone. */
const updateReadmeScreenshots = process.env.UPDATE_README_SCREENSHOTS === "1";

/**
 * Save a screenshot of the page under test-results/screenshots/<name>.png (a test artifact) and,
 * when asked to, copy it to docs/screenshots/<name>.png, where the README picks it up.
 */
export async function saveScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<string> {
  const resultsDir = path.join(testInfo.project.outputDir, "screenshots");
  const resultPath = path.join(resultsDir, `${name}.png`);
  await mkdir(resultsDir, { recursive: true });
  await page.screenshot({ path: resultPath, animations: "disabled", caret: "hide" });
  if (updateReadmeScreenshots) {
    await mkdir(DOCS_SCREENSHOTS_DIR, { recursive: true });
    await copyFile(resultPath, path.join(DOCS_SCREENSHOTS_DIR, `${name}.png`));
  }
  await testInfo.attach(name, { path: resultPath, contentType: "image/png" });
  return resultPath;
}

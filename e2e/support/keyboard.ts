import type { Page } from "@playwright/test";

const MAX_TAB_PRESSES = 40;

async function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? null);
}

/**
 * Press Tab until the element with `testId` has focus, as a keyboard user would. Fails when the
 * element cannot be reached within a bounded number of presses (it is not in the tab order).
 */
export async function tabTo(page: Page, testId: string): Promise<void> {
  const seen: string[] = [];
  for (let press = 0; press < MAX_TAB_PRESSES; press += 1) {
    if ((await focusedTestId(page)) === testId) return;
    await page.keyboard.press("Tab");
    seen.push((await focusedTestId(page)) ?? "(no test id)");
  }
  throw new Error(`"${testId}" never received focus after ${MAX_TAB_PRESSES} Tab presses; focus went through: ${seen.join(", ")}`);
}

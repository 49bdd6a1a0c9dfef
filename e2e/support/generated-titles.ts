import type { BrowserContext } from "@playwright/test";

/** The browser's preference that turns generated titles off (lib/client/local-preferences.ts). */
const TITLES_OFF_KEY = "lwc:generate-titles";

/**
 * Turns generated titles off in every page of `context`. The suite runs with them off unless a
 * test asks: the title is one more model call after a conversation's first answer, which would
 * count against the suite's small rate limit, take an armed fault and change the titles and the
 * request lists other tests read.
 */
export async function turnGeneratedTitlesOff(context: BrowserContext): Promise<void> {
  await context.addInitScript((key) => {
    try {
      window.localStorage.setItem(key, "off");
    } catch {
      // A page without storage (opaque origin) has no preference to set.
    }
  }, TITLES_OFF_KEY);
}

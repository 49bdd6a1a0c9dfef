/**
 * The colour theme: System (follow the device), Light or Dark, remembered in this browser
 * (localStorage). The page's `<html>` carries the theme in use as `data-theme="light"|"dark"`; the
 * stylesheet keys its dark colours on it. A small script in the root layout sets it before the
 * first paint (no flash of the wrong theme) and keeps it in step with the device setting and with
 * other tabs; the header's control changes it here.
 */

export type ThemeChoice = "system" | "light" | "dark";
type Theme = "light" | "dark";

export const THEME_CHOICES: readonly ThemeChoice[] = ["system", "light", "dark"];

/** The app's own localStorage prefix (`lwc:`), so "sign out and forget" forgets it too. */
export const THEME_STORAGE_KEY = "lwc:theme";

const DARK_QUERY = "(prefers-color-scheme: dark)";

export function parseThemeChoice(value: unknown): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}

export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  return choice === "system" ? (systemDark ? "dark" : "light") : choice;
}

/** The stored choice ("system" when nothing, something else, or no storage). */
export function readThemeChoice(): ThemeChoice {
  try {
    return parseThemeChoice(window.localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return "system";
  }
}

/** Remembers the choice and applies it to this page at once. */
export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === "system") window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage disabled: the choice lasts for this page only.
  }
  document.documentElement.dataset.theme = resolveTheme(choice, window.matchMedia(DARK_QUERY).matches);
}

/**
 * Runs in the page before anything is painted (the root layout inlines it, with the page's CSP
 * nonce): applies the stored choice, then follows the device setting while the choice is System
 * and the choice made in another tab. Self-contained on purpose: it is sent as its source text.
 */
function bootTheme(): void {
  const key = "lwc:theme";
  const query = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = () => {
    let stored: string | null = null;
    try {
      stored = window.localStorage.getItem(key);
    } catch {
      // No storage: follow the device.
    }
    const theme = stored === "light" || stored === "dark" ? stored : query.matches ? "dark" : "light";
    document.documentElement.dataset.theme = theme;
  };
  apply();
  query.addEventListener("change", apply);
  window.addEventListener("storage", (event) => {
    if (event.key === key || event.key === null) apply();
  });
}

/** The inline script's source: `bootTheme` called at once. */
export const THEME_BOOT_SCRIPT = `(${bootTheme.toString()})()`;

/** Every key this app keeps in localStorage starts with this, so sign-out can forget them all. */
const APP_STORAGE_PREFIX = "lwc:";

export function readStored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled (private mode, policies)
  }
}

export function writeStored(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Not remembering a preference is fine.
  }
}

export function removeStored(key: string): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing stored, nothing to remove.
  }
}

/** Removes the app's own localStorage keys (`lwc:*`), leaving anything else on the origin alone. */
export function clearAppStorage(): void {
  try {
    const keys = Array.from({ length: window.localStorage.length }, (_, index) => window.localStorage.key(index));
    for (const key of keys) if (key?.startsWith(APP_STORAGE_PREFIX)) window.localStorage.removeItem(key);
  } catch {
    // Storage disabled: nothing was kept.
  }
}

/** "off" when the person turned generated titles off in this browser (they are on by default). */
const GENERATED_TITLES_KEY = "lwc:generate-titles";

/** Whether a short title is generated after a conversation's first answer (lib/client/conversation-titles.ts). */
export function generatedTitlesOn(): boolean {
  return readStored(GENERATED_TITLES_KEY) !== "off";
}

export function rememberGeneratedTitles(on: boolean): void {
  if (on) removeStored(GENERATED_TITLES_KEY);
  else writeStored(GENERATED_TITLES_KEY, "off");
}

import { afterEach, describe, expect, it, vi } from "vitest";
import { chooseTheme, parseThemeChoice, readThemeChoice, resolveTheme, THEME_BOOT_SCRIPT, THEME_STORAGE_KEY } from "./theme";

/** A page as the boot script and the control see it: storage, the device's dark setting, `<html>`. */
function fakePage(options: { stored?: string | null; systemDark: boolean; storageThrows?: boolean }) {
  const items = new Map<string, string>();
  if (options.stored != null) items.set(THEME_STORAGE_KEY, options.stored);
  const mediaListeners: (() => void)[] = [];
  const windowListeners: ((event: { key: string | null }) => void)[] = [];
  const query = {
    matches: options.systemDark,
    addEventListener: (_type: string, listener: () => void) => mediaListeners.push(listener),
  };
  const blocked = () => {
    throw new Error("SecurityError: storage is disabled");
  };
  const localStorage = {
    getItem: (key: string) => (options.storageThrows ? blocked() : (items.get(key) ?? null)),
    setItem: (key: string, value: string) => (options.storageThrows ? blocked() : items.set(key, value)),
    removeItem: (key: string) => (options.storageThrows ? blocked() : items.delete(key)),
  };
  const window = {
    localStorage,
    matchMedia: (text: string) => {
      expect(text).toBe("(prefers-color-scheme: dark)");
      return query;
    },
    addEventListener: (type: string, listener: (event: { key: string | null }) => void) => {
      if (type === "storage") windowListeners.push(listener);
    },
  };
  const document = { documentElement: { dataset: {} as Record<string, string> } };
  return {
    window,
    document,
    items,
    theme: () => document.documentElement.dataset.theme,
    /** Runs the inline script exactly as the layout sends it. */
    boot: () => new Function("window", "document", THEME_BOOT_SCRIPT)(window, document),
    setSystemDark(dark: boolean) {
      query.matches = dark;
      for (const listener of mediaListeners) listener();
    },
    otherTabStored(value: string | null) {
      if (value === null) items.delete(THEME_STORAGE_KEY);
      else items.set(THEME_STORAGE_KEY, value);
      for (const listener of windowListeners) listener({ key: THEME_STORAGE_KEY });
    },
  };
}

describe("theme choice", () => {
  it("reads anything but light or dark as system", () => {
    expect(parseThemeChoice("light")).toBe("light");
    expect(parseThemeChoice("dark")).toBe("dark");
    for (const value of [null, undefined, "", "Dark", "blue", 1]) expect(parseThemeChoice(value)).toBe("system");
  });

  it("resolves system from the device setting, and a choice as itself", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
  });
});

describe("the boot script (inlined before the first paint)", () => {
  it("follows the device when nothing is stored", () => {
    const page = fakePage({ systemDark: true });
    page.boot();
    expect(page.theme()).toBe("dark");
    page.setSystemDark(false);
    expect(page.theme()).toBe("light");
  });

  it("applies a stored choice over the device setting, and keeps it when the device changes", () => {
    const page = fakePage({ stored: "light", systemDark: true });
    page.boot();
    expect(page.theme()).toBe("light");
    page.setSystemDark(false);
    page.setSystemDark(true);
    expect(page.theme()).toBe("light");
  });

  it("treats an unknown stored value, or storage that throws, as system", () => {
    const odd = fakePage({ stored: "sepia", systemDark: true });
    odd.boot();
    expect(odd.theme()).toBe("dark");
    const blocked = fakePage({ stored: "light", systemDark: true, storageThrows: true });
    blocked.boot();
    expect(blocked.theme()).toBe("dark");
  });

  it("follows a choice made in another tab", () => {
    const page = fakePage({ systemDark: false });
    page.boot();
    page.otherTabStored("dark");
    expect(page.theme()).toBe("dark");
    page.otherTabStored(null);
    expect(page.theme()).toBe("light");
  });
});

describe("chooseTheme and readThemeChoice", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("remembers light and dark, forgets the key for system, and applies at once", () => {
    const page = fakePage({ systemDark: true });
    vi.stubGlobal("window", page.window);
    vi.stubGlobal("document", page.document);
    expect(readThemeChoice()).toBe("system");

    chooseTheme("light");
    expect(page.items.get(THEME_STORAGE_KEY)).toBe("light");
    expect(page.theme()).toBe("light");
    expect(readThemeChoice()).toBe("light");

    chooseTheme("system");
    expect(page.items.has(THEME_STORAGE_KEY)).toBe(false);
    expect(page.theme()).toBe("dark");
    expect(readThemeChoice()).toBe("system");
  });

  it("still applies the choice when storage is disabled", () => {
    const page = fakePage({ systemDark: false, storageThrows: true });
    vi.stubGlobal("window", page.window);
    vi.stubGlobal("document", page.document);
    chooseTheme("dark");
    expect(page.theme()).toBe("dark");
    expect(readThemeChoice()).toBe("system");
  });
});

import { describe, expect, it } from "vitest";
import { focusComposerOnOpen, isMacPlatform, shortcutFor, shortcutList, type ShortcutKey } from "./keyboard-shortcuts";

const press = (overrides: Partial<ShortcutKey>): ShortcutKey => ({
  key: "",
  code: "",
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  isComposing: false,
  inTextField: false,
  ...overrides,
});

describe("shortcutFor", () => {
  it("Ctrl on Windows and Linux, ⌘ on a Mac", () => {
    expect(shortcutFor(press({ key: "k", code: "KeyK", ctrlKey: true }), false)).toBe("search");
    expect(shortcutFor(press({ key: "k", code: "KeyK", metaKey: true }), false)).toBeNull();
    expect(shortcutFor(press({ key: "k", code: "KeyK", metaKey: true }), true)).toBe("search");
    expect(shortcutFor(press({ key: "k", code: "KeyK", ctrlKey: true }), true)).toBeNull();
  });

  it("new chat and the sidebar take Shift too, and work inside the message box", () => {
    expect(shortcutFor(press({ key: "O", code: "KeyO", ctrlKey: true, shiftKey: true, inTextField: true }), false)).toBe("new-chat");
    expect(shortcutFor(press({ key: "S", code: "KeyS", ctrlKey: true, shiftKey: true, inTextField: true }), false)).toBe("toggle-sidebar");
    expect(shortcutFor(press({ key: "o", code: "KeyO", ctrlKey: true }), false)).toBeNull();
    expect(shortcutFor(press({ key: "K", code: "KeyK", ctrlKey: true, shiftKey: true }), false)).toBeNull();
  });

  it("reads the key's letter on other layouts from where the key is", () => {
    expect(shortcutFor(press({ key: "л", code: "KeyK", ctrlKey: true }), false)).toBe("search");
  });

  it("? shows the shortcuts outside text fields only; Ctrl+/ anywhere", () => {
    expect(shortcutFor(press({ key: "?", code: "Slash", shiftKey: true }), false)).toBe("show-shortcuts");
    expect(shortcutFor(press({ key: "?", code: "Slash", shiftKey: true, inTextField: true }), false)).toBeNull();
    expect(shortcutFor(press({ key: "/", code: "Slash", ctrlKey: true, inTextField: true }), false)).toBe("show-shortcuts");
  });

  it("ignores Alt, IME input and plain keys", () => {
    expect(shortcutFor(press({ key: "k", code: "KeyK", ctrlKey: true, altKey: true }), false)).toBeNull();
    expect(shortcutFor(press({ key: "k", code: "KeyK", ctrlKey: true, isComposing: true }), false)).toBeNull();
    expect(shortcutFor(press({ key: "k", code: "KeyK" }), false)).toBeNull();
  });
});

describe("shortcutList", () => {
  it("names every shortcut with the keys of this platform", () => {
    expect(shortcutList(false)).toEqual([
      { action: "new-chat", label: "New chat", combos: [["Ctrl", "Shift", "O"]] },
      { action: "search", label: "Search conversations", combos: [["Ctrl", "K"]] },
      { action: "toggle-sidebar", label: "Show or hide the conversation list", combos: [["Ctrl", "Shift", "S"]] },
      { action: "show-shortcuts", label: "Keyboard shortcuts", combos: [["?"], ["Ctrl", "/"]] },
    ]);
    expect(shortcutList(true)[1]!.combos).toEqual([["⌘", "K"]]);
  });
});

describe("isMacPlatform", () => {
  it("reads the platform the browser reports", () => {
    expect(isMacPlatform({ platform: "MacIntel", userAgent: "" })).toBe(true);
    expect(isMacPlatform({ platform: "iPad", userAgent: "" })).toBe(true);
    expect(isMacPlatform({ platform: "Linux x86_64", userAgent: "Mozilla/5.0 (X11; Linux x86_64)" })).toBe(false);
    expect(isMacPlatform({ platform: "", userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)" })).toBe(true);
  });
});

describe("focusComposerOnOpen", () => {
  const media = (matching: string[]) => (query: string) => ({ matches: matching.includes(query) });

  it("focuses the message box unless the main pointer is a finger (it would pop the keyboard up)", () => {
    expect(focusComposerOnOpen(media(["(pointer: fine)"]))).toBe(true);
    expect(focusComposerOnOpen(media(["(pointer: coarse)"]))).toBe(false);
    // A keyboard-only device reports no pointer at all; it has a keyboard to type with.
    expect(focusComposerOnOpen(media(["(pointer: none)"]))).toBe(true);
  });
});

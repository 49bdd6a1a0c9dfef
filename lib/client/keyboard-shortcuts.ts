/** What a keyboard shortcut does (components/use-keyboard-shortcuts.ts carries it out). */
export type ShortcutAction = "new-chat" | "search" | "toggle-sidebar" | "show-shortcuts";

/** The parts of a keydown event a shortcut depends on. */
export interface ShortcutKey {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  isComposing: boolean;
  /** Focus is in a text box, where a plain `?` is typed, not a shortcut. */
  inTextField: boolean;
}

interface Binding {
  action: ShortcutAction;
  label: string;
  letter: string;
  shift: boolean;
}

/** As ChatGPT's web app binds them, so habits carry over. */
const MODIFIED: readonly Binding[] = [
  { action: "new-chat", label: "New chat", letter: "o", shift: true },
  { action: "search", label: "Search conversations", letter: "k", shift: false },
  { action: "toggle-sidebar", label: "Show or hide the conversation list", letter: "s", shift: true },
];

/** The key's letter: from `key`, or, on a layout without Latin letters, from where the key is (`code`). */
function letterOf(event: ShortcutKey): string | null {
  if (/^[a-z]$/i.test(event.key)) return event.key.toLowerCase();
  const physical = /^Key([A-Z])$/.exec(event.code);
  return physical ? physical[1]!.toLowerCase() : null;
}

/** The shortcut a key press asks for, or null. `mac`: ⌘ is the modifier there, Ctrl elsewhere. */
export function shortcutFor(event: ShortcutKey, mac: boolean): ShortcutAction | null {
  if (event.isComposing || event.altKey) return null;
  const modifier = mac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
  if (modifier) {
    if (event.key === "/" || (event.code === "Slash" && !event.shiftKey)) return "show-shortcuts";
    const letter = letterOf(event);
    return MODIFIED.find((binding) => binding.letter === letter && binding.shift === event.shiftKey)?.action ?? null;
  }
  if (event.key === "?" && !event.ctrlKey && !event.metaKey && !event.inTextField) return "show-shortcuts";
  return null;
}

interface ShortcutDescription {
  action: ShortcutAction;
  label: string;
  /** Each way to ask for it: the keys to press together, as the keyboard labels them. */
  combos: string[][];
}

/** Every shortcut, for the Keyboard shortcuts dialog. */
export function shortcutList(mac: boolean): ShortcutDescription[] {
  const modifier = mac ? "⌘" : "Ctrl";
  return [
    ...MODIFIED.map(({ action, label, letter, shift }) => ({ action, label, combos: [[modifier, ...(shift ? ["Shift"] : []), letter.toUpperCase()]] })),
    { action: "show-shortcuts", label: "Keyboard shortcuts", combos: [["?"], [modifier, "/"]] },
  ];
}

/** Apple keyboards use ⌘ where others use Ctrl. */
export function isMacPlatform(navigatorLike: { platform: string; userAgent: string }): boolean {
  return /Mac|iPhone|iPad|iPod/.test(navigatorLike.platform) || /Macintosh|Mac OS X/.test(navigatorLike.userAgent);
}

/**
 * Whether opening a conversation puts the cursor in the message box. Not where the main pointer is
 * a finger: focusing would pop the on-screen keyboard up over the conversation. A mouse, a
 * trackpad, or no pointer at all (a keyboard-only device) means typing is the next thing to do.
 */
export function focusComposerOnOpen(matchMedia: (query: string) => { matches: boolean }): boolean {
  return !matchMedia("(pointer: coarse)").matches;
}

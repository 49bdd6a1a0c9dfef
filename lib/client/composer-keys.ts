/** The parts of a keydown event that decide whether Enter sends the message. */
interface ComposerKey {
  key: string;
  shiftKey: boolean;
  /** `KeyboardEvent.isComposing`: an IME composition is in progress. */
  isComposing: boolean;
  /** `KeyboardEvent.keyCode` (deprecated, but the only IME signal Safari gives; 229 = "processed by an IME"). */
  keyCode: number;
}

/** keyCode browsers report for a key the IME handled. */
const IME_PROCESS_KEY_CODE = 229;

/**
 * Enter sends; Shift+Enter adds a line; an Enter that confirms an IME candidate does nothing.
 * Safari fires that confirming Enter after `compositionend`, so `isComposing` is already false
 * there; its keyCode 229 still gives it away.
 */
export function enterSendsMessage(event: ComposerKey): boolean {
  if (event.key !== "Enter" || event.shiftKey) return false;
  return !event.isComposing && event.keyCode !== IME_PROCESS_KEY_CODE;
}

/**
 * The in-place message editor: Enter sends the edit and Escape cancels it, like the message box;
 * Shift+Enter adds a line. Keys an IME is handling belong to it (Escape there closes its candidates).
 */
export function editorKeyAction(event: ComposerKey): "send" | "cancel" | null {
  if (enterSendsMessage(event)) return "send";
  if (event.key === "Escape" && !event.isComposing && event.keyCode !== IME_PROCESS_KEY_CODE) return "cancel";
  return null;
}

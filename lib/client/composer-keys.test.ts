import { describe, expect, it } from "vitest";
import { editorKeyAction, enterSendsMessage } from "./composer-keys";

const enter = { key: "Enter", shiftKey: false, isComposing: false, keyCode: 13 };

describe("enterSendsMessage", () => {
  it("sends on a plain Enter", () => {
    expect(enterSendsMessage(enter)).toBe(true);
  });

  it("adds a line on Shift+Enter and ignores other keys", () => {
    expect(enterSendsMessage({ ...enter, shiftKey: true })).toBe(false);
    expect(enterSendsMessage({ ...enter, key: "a", keyCode: 65 })).toBe(false);
  });

  it("does not send while an IME is composing", () => {
    expect(enterSendsMessage({ ...enter, isComposing: true, keyCode: 229 })).toBe(false);
  });

  it("does not send Safari's candidate-confirming Enter (after compositionend: isComposing false, keyCode 229)", () => {
    expect(enterSendsMessage({ ...enter, isComposing: false, keyCode: 229 })).toBe(false);
  });
});

describe("editorKeyAction (the in-place message editor)", () => {
  const key = (overrides: Partial<Parameters<typeof editorKeyAction>[0]>) => ({ ...enter, ...overrides });

  it("sends on Enter and cancels on Escape", () => {
    expect(editorKeyAction(key({}))).toBe("send");
    expect(editorKeyAction(key({ key: "Escape", keyCode: 27 }))).toBe("cancel");
  });

  it("leaves Shift+Enter (a new line), other keys and IME input to the text box", () => {
    expect(editorKeyAction(key({ shiftKey: true }))).toBeNull();
    expect(editorKeyAction(key({ key: "a", keyCode: 65 }))).toBeNull();
    expect(editorKeyAction(key({ isComposing: true, keyCode: 229 }))).toBeNull();
    // Escape while composing closes the IME's candidate list, not the editor.
    expect(editorKeyAction(key({ key: "Escape", isComposing: true, keyCode: 229 }))).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { enterSendsMessage } from "./composer-keys";

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

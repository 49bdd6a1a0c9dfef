import { describe, expect, it } from "vitest";
import { composerPlaceholder, usageShown } from "./chat-chrome";

describe("the message box's placeholder", () => {
  it("says why nothing can be sent, first things first", () => {
    expect(composerPlaceholder({ chatOff: true, models: "loading", modelCount: 0 })).toBe("Chat is off until plan usage is enabled");
    expect(composerPlaceholder({ chatOff: false, models: "loading", modelCount: 0 })).toBe("Loading models…");
    expect(composerPlaceholder({ chatOff: false, models: "error", modelCount: 0 })).toBe("Models couldn't be loaded");
    expect(composerPlaceholder({ chatOff: false, models: "ready", modelCount: 0 })).toBe("No models are available for this account");
    expect(composerPlaceholder({ chatOff: false, models: "ready", modelCount: 3 })).toBe("Ask anything");
  });
});

describe("the usage the header shows", () => {
  const usage = { primary: { usedPercent: 42, windowMinutes: 300, resetsAt: 1_000 }, secondary: { usedPercent: 10 } };

  it("is what the replies said, unless the latest turn hit the usage limit", () => {
    expect(usageShown(usage, undefined)).toBe(usage);
    expect(usageShown(usage, { code: "network_error", message: "" })).toBe(usage);
    expect(usageShown(undefined, undefined)).toBeUndefined();
  });

  it("after a usage limit, is full until the reset the failure reported", () => {
    const failure = { code: "usage_limit" as const, message: "", usageLimit: { resetsAt: 9_000 } };
    expect(usageShown(usage, failure)).toEqual({ primary: { usedPercent: 100, windowMinutes: 300, resetsAt: 9_000 }, secondary: { usedPercent: 10 } });
    expect(usageShown(undefined, failure)).toEqual({ primary: { usedPercent: 100, windowMinutes: undefined, resetsAt: 9_000 } });
    expect(usageShown(usage, { ...failure, usageLimit: {} })).toBe(usage);
  });
});

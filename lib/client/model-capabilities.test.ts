import { describe, expect, it } from "vitest";
import type { ModelDetails } from "@/lib/upstream/models";
import { acceptsImages, clampEffort, effortsFor, firstUsableModel, offersFast } from "./model-capabilities";

const full: ModelDetails = {
  slug: "gpt-6.1-sol",
  displayName: "GPT-6.1 Sol",
  reasoningEfforts: ["low", "medium", "high", "xhigh", "max"],
  defaultReasoningEffort: "medium",
  serviceTiers: ["priority"],
  inputModalities: ["text", "image"],
};
const mini: ModelDetails = {
  slug: "gpt-5.4-mini",
  displayName: "GPT-5.4-Mini",
  reasoningEfforts: ["low", "medium", "high"],
  defaultReasoningEffort: "low",
  serviceTiers: [],
  inputModalities: ["text"],
};

describe("model capabilities", () => {
  it("offers the model's own efforts, or all of them when it lists none", () => {
    expect(effortsFor(mini)).toEqual(["low", "medium", "high"]);
    expect(effortsFor({ ...mini, reasoningEfforts: [] })).toEqual(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
    expect(effortsFor(undefined)).toHaveLength(7);
    // ultra is Codex's own: never offered for a direct call, even if a server passed it on.
    expect(effortsFor({ ...full, reasoningEfforts: ["low", "max", "ultra"] })).toEqual(["low", "max"]);
  });

  it("clamps an effort the model rejects to its default", () => {
    expect(clampEffort("xhigh", full)).toBe("xhigh");
    expect(clampEffort("max", full)).toBe("max");
    expect(clampEffort("xhigh", mini)).toBe("low");
    expect(clampEffort("none", { ...mini, defaultReasoningEffort: undefined })).toBe("medium");
    expect(clampEffort("none", { ...mini, reasoningEfforts: ["high"], defaultReasoningEffort: undefined })).toBe("high");
  });

  it("sends minimal as the model's lowest effort where the model does not take it", () => {
    expect(clampEffort("minimal", full)).toBe("low");
    expect(clampEffort("minimal", { ...mini, reasoningEfforts: ["none", "minimal", "low"] })).toBe("minimal");
  });

  it("picks the preferred model when it is usable, else the first usable one", () => {
    const gated: ModelDetails = {
      ...full,
      slug: "gpt-7-sol",
      unavailable: { reason: "client_version_outdated", minimalClientVersion: "0.170.0", message: "needs 0.170.0" },
    };
    expect(firstUsableModel([gated, full, mini], "gpt-5.4-mini")?.slug).toBe("gpt-5.4-mini");
    expect(firstUsableModel([gated, full, mini], "gpt-7-sol")?.slug).toBe("gpt-6.1-sol");
    expect(firstUsableModel([gated, full, mini], null)?.slug).toBe("gpt-6.1-sol");
    expect(firstUsableModel([gated], null)).toBeUndefined();
  });

  it("offers Fast and images only where the model lists them", () => {
    expect(offersFast(full)).toBe(true);
    expect(offersFast(mini)).toBe(false);
    expect(offersFast({ ...mini, serviceTiers: ["flex"] })).toBe(false);
    expect(acceptsImages(full)).toBe(true);
    expect(acceptsImages(mini)).toBe(false);
  });
});

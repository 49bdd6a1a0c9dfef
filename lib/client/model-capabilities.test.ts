import { describe, expect, it } from "vitest";
import type { ModelDetails } from "@/lib/upstream/models";
import { acceptsImages, clampEffort, effortsFor, offersFast } from "./model-capabilities";

const full: ModelDetails = {
  slug: "gpt-5.5",
  displayName: "GPT-5.5",
  reasoningEfforts: ["none", "low", "medium", "high", "xhigh"],
  defaultReasoningEffort: "medium",
  serviceTiers: ["priority", "flex"],
  inputModalities: ["text", "image"],
};
const mini: ModelDetails = {
  slug: "gpt-5.5-mini",
  displayName: "GPT-5.5-Mini",
  reasoningEfforts: ["low", "medium", "high"],
  defaultReasoningEffort: "low",
  serviceTiers: [],
  inputModalities: ["text"],
};

describe("model capabilities", () => {
  it("offers the model's own efforts, or all of them when it lists none", () => {
    expect(effortsFor(mini)).toEqual(["low", "medium", "high"]);
    expect(effortsFor({ ...mini, reasoningEfforts: [] })).toEqual(["none", "low", "medium", "high", "xhigh"]);
    expect(effortsFor(undefined)).toHaveLength(5);
  });

  it("clamps an effort the model rejects to its default", () => {
    expect(clampEffort("xhigh", full)).toBe("xhigh");
    expect(clampEffort("xhigh", mini)).toBe("low");
    expect(clampEffort("none", { ...mini, defaultReasoningEffort: undefined })).toBe("medium");
    expect(clampEffort("none", { ...mini, reasoningEfforts: ["high"], defaultReasoningEffort: undefined })).toBe("high");
  });

  it("offers Fast and images only where the model lists them", () => {
    expect(offersFast(full)).toBe(true);
    expect(offersFast(mini)).toBe(false);
    expect(offersFast({ ...mini, serviceTiers: ["flex"] })).toBe(false);
    expect(acceptsImages(full)).toBe(true);
    expect(acceptsImages(mini)).toBe(false);
  });
});

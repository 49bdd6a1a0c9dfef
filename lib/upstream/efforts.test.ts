import { describe, expect, it } from "vitest";
import { effortForModel } from "./efforts";

describe("effortForModel", () => {
  it("maps minimal to the lowest effort above it that the model lists", () => {
    expect(effortForModel("minimal", ["low", "medium", "high", "xhigh", "max", "ultra"])).toBe("low");
    expect(effortForModel("minimal", ["none", "medium", "high"])).toBe("medium");
    expect(effortForModel("minimal", ["ultra"])).toBe("minimal");
  });

  it("keeps minimal where it is listed, other efforts always, and anything for a model that lists nothing", () => {
    expect(effortForModel("minimal", ["none", "minimal", "low"])).toBe("minimal");
    expect(effortForModel("high", ["low"])).toBe("high");
    expect(effortForModel("minimal", [])).toBe("minimal");
  });
});

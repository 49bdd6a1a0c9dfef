import { describe, expect, it } from "vitest";
import { isVersionAtLeast } from "./version";

describe("isVersionAtLeast", () => {
  it("compares part by part as numbers", () => {
    expect(isVersionAtLeast("0.170.0", "0.99.0")).toBe(true);
    expect(isVersionAtLeast("0.169.0", "0.170.0")).toBe(false);
    expect(isVersionAtLeast("0.169.0", "0.169.0")).toBe(true);
    expect(isVersionAtLeast("0.169", "0.169.0")).toBe(true);
    expect(isVersionAtLeast("1.0.0", "0.999.999")).toBe(true);
  });

  it("counts a missing or malformed version as older than everything", () => {
    for (const version of [undefined, null, "", "latest", "0.169.0-alpha.1"]) expect(isVersionAtLeast(version, "0.0.1")).toBe(false);
  });

  it("lets a malformed minimum gate nothing", () => {
    expect(isVersionAtLeast("0.1.0", "soon")).toBe(true);
  });
});

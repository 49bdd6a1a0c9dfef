import { describe, expect, it } from "vitest";
import { parseVercelSandboxHandle } from "./handle";

const handle = { kind: "vercel-sandbox", sandboxId: "sbx-1", relayUrl: "https://sb-1-8080.vercel.run", relayEpoch: "e1" };

describe("parseVercelSandboxHandle", () => {
  it("takes a stored handle back as it was, without unknown keys", () => {
    expect(parseVercelSandboxHandle(JSON.parse(JSON.stringify({ ...handle, token: "never-stored" })))).toEqual(handle);
  });

  it("refuses anything else without echoing it", () => {
    for (const bad of [null, "sbx-1", { ...handle, kind: "bwrap" }, { ...handle, relayUrl: "ftp://x" }, { ...handle, sandboxId: "" }]) {
      expect(() => parseVercelSandboxHandle(bad)).toThrow(/^not a Vercel Sandbox handle$/);
    }
  });
});

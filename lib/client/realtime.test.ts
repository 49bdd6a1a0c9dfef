import { describe, expect, it } from "vitest";
import { connectRealtime } from "./realtime";
import { RealtimeError } from "./realtime-error";

// The call itself needs a browser: e2e/voice*.spec.ts runs it in Chromium against the mock's peer.
describe("connectRealtime outside a browser that can call", () => {
  it("rejects with unsupported_browser before touching anything", async () => {
    let fetched = false;
    const attempt = connectRealtime({
      fetch: async () => {
        fetched = true;
        return new Response("");
      },
    });
    await expect(attempt).rejects.toBeInstanceOf(RealtimeError);
    await expect(attempt).rejects.toMatchObject({ code: "unsupported_browser" });
    expect(fetched).toBe(false);
  });
});

import { describe, expect, it, vi } from "vitest";
import { onDemand } from "./on-demand";

describe("onDemand", () => {
  it("downloads once however many callers ask, and then has the module at hand", async () => {
    const partModule = { Part: "the part" };
    const importPart = vi.fn(async () => partModule);
    const part = onDemand(importPart);
    expect(part.loaded()).toBeUndefined();
    expect(importPart).not.toHaveBeenCalled();

    const [first, second] = await Promise.all([part.load(), part.load()]);
    expect(first).toBe(partModule);
    expect(second).toBe(partModule);
    expect(await part.load()).toBe(partModule);
    expect(part.loaded()).toBe(partModule);
    expect(importPart).toHaveBeenCalledTimes(1);
  });

  it("forgets a failed download, so the next load tries again", async () => {
    const partModule = { Part: "the part" };
    const importPart = vi.fn<() => Promise<typeof partModule>>().mockRejectedValueOnce(new Error("Failed to load chunk")).mockResolvedValueOnce(partModule);
    const part = onDemand(importPart);

    await expect(part.load()).rejects.toThrow("Failed to load chunk");
    expect(part.loaded()).toBeUndefined();
    expect(await part.load()).toBe(partModule);
    expect(part.loaded()).toBe(partModule);
    expect(importPart).toHaveBeenCalledTimes(2);
  });

  it("tells every subscriber when the module has loaded, not when a download failed, and no longer after unsubscribing", async () => {
    const importPart = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new Error("Failed to load chunk")).mockResolvedValueOnce("the part");
    const part = onDemand(importPart);
    const waiting = vi.fn();
    const gone = vi.fn();
    part.subscribe(waiting);
    const stop = part.subscribe(gone);

    await expect(part.load()).rejects.toThrow();
    expect(waiting).not.toHaveBeenCalled();
    stop();
    await part.load();
    expect(waiting).toHaveBeenCalledTimes(1);
    expect(gone).not.toHaveBeenCalled();
  });
});

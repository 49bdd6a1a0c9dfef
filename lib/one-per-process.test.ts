import { afterEach, describe, expect, it, vi } from "vitest";

/** A fresh copy of the module, as `next dev` evaluates it again after a save. */
async function freshModule() {
  vi.resetModules();
  return import("./one-per-process");
}

afterEach(() => vi.unstubAllEnvs());

describe("onePerProcess", () => {
  it("in development keeps one value per name across re-evaluations of the module", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const name = `test-${Math.random()}`;
    const first = (await freshModule()).onePerProcess(name, "a", () => ({ made: 1 }));
    const again = (await freshModule()).onePerProcess(name, "a", () => ({ made: 2 }));
    expect(again).toBe(first);
  });

  it("in development retires the old value and makes a new one when its key changes", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const name = `test-${Math.random()}`;
    const { onePerProcess } = await freshModule();
    const retired: unknown[] = [];
    const first = onePerProcess(name, "settings-1", () => ({ made: 1 }));
    const second = onePerProcess(name, "settings-2", () => ({ made: 2 }), (old) => retired.push(old));
    expect(second).toEqual({ made: 2 });
    expect(retired).toEqual([first]);
    expect(onePerProcess(name, "settings-2", () => ({ made: 3 }))).toBe(second);
  });

  it.each(["production", "test"])("with NODE_ENV=%s makes a new value every time", async (nodeEnv) => {
    vi.stubEnv("NODE_ENV", nodeEnv);
    const { onePerProcess } = await freshModule();
    const name = `test-${Math.random()}`;
    const first = onePerProcess(name, "", () => ({}));
    expect(onePerProcess(name, "", () => ({}))).not.toBe(first);
  });
});

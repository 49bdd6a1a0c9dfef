import { describe, expect, it } from "vitest";
import { ProviderAuthError } from "@/lib/upstream/errors";
import { ACCOUNT_MODELS_CACHE_MS, createAccountModelsCache, FAILED_MODELS_CACHE_MS } from "./account-models";

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("createAccountModelsCache", () => {
  it("serves a loaded list until it is older than the cache time", async () => {
    const time = clock();
    const cache = createAccountModelsCache<string[]>(time.now);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return ["gpt-5.5"];
    };
    expect(await cache.get("acct", load)).toEqual(["gpt-5.5"]);
    expect(await cache.get("acct", load)).toEqual(["gpt-5.5"]);
    expect(loads).toBe(1);
    time.advance(ACCOUNT_MODELS_CACHE_MS);
    await cache.get("acct", load);
    expect(loads).toBe(2);
  });

  it("remembers a backend outage briefly, so /responses does not call the backend on every request", async () => {
    const time = clock();
    const cache = createAccountModelsCache<string[]>(time.now);
    let loads = 0;
    const failing = async (): Promise<string[]> => {
      loads += 1;
      throw new ProviderAuthError("models_request_failed", "Upstream answered 503", { status: 503 });
    };
    await expect(cache.get("acct", failing)).rejects.toMatchObject({ code: "models_request_failed" });
    await expect(cache.get("acct", failing)).rejects.toMatchObject({ code: "models_request_failed" });
    expect(loads).toBe(1);
    time.advance(FAILED_MODELS_CACHE_MS);
    await expect(cache.get("acct", failing)).rejects.toMatchObject({ code: "models_request_failed" });
    expect(loads).toBe(2);
  });

  it("does not remember other failures (a dead login must not block a fresh sign-in of the account)", async () => {
    const cache = createAccountModelsCache<string[]>(clock().now);
    const dead = async (): Promise<string[]> => {
      throw new ProviderAuthError("refresh_token_invalid", "dead");
    };
    await expect(cache.get("acct", dead)).rejects.toMatchObject({ code: "refresh_token_invalid" });
    expect(await cache.get("acct", async () => ["gpt-5.5"])).toEqual(["gpt-5.5"]);
  });
});

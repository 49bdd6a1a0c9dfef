import "server-only";
import { randomBytes } from "node:crypto";
import type { KeyValueStore } from "@/lib/stores/types";
import type { CheckResult } from "./types";

const PROBE_TTL_MS = 60_000;

/**
 * The session store answers a write, a read and a delete of a probe key. Memory in production is
 * what the server's own deploy guard (lib/deploy-checks.ts) calls `memory_store`: a failure, or a
 * warning when LWC_ALLOW_MEMORY_STORE=1 says one instance is meant.
 */
export async function checkStore(store: KeyValueStore, production: boolean, memoryAllowed: boolean): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "store", status, detail });
  if (store.kind === "memory") {
    if (!production) return result("ok", "memory (this server process only: fine for one development server)");
    if (memoryAllowed) return result("warn", "memory in production, allowed by LWC_ALLOW_MEMORY_STORE=1: one instance only, sessions end with every restart");
    return result(
      "fail",
      "memory in production: sessions end with every restart and are not shared between instances. Set UPSTASH_REDIS_REST_URL " +
        "and UPSTASH_REDIS_REST_TOKEN (or KV_REST_API_URL and KV_REST_API_TOKEN), or LWC_ALLOW_MEMORY_STORE=1 if one instance is meant.",
    );
  }
  const key = `lwc:doctor:${randomBytes(8).toString("hex")}`;
  const value = randomBytes(8).toString("hex");
  const started = Date.now();
  try {
    await store.set(key, value, PROBE_TTL_MS);
    const read = await store.get(key);
    await store.delete(key);
    if (read !== value) return result("fail", `${store.kind}: a key written was read back as something else`);
    return result("ok", `${store.kind}: wrote, read and deleted a key in ${Date.now() - started} ms`);
  } catch (error) {
    // The store's own errors are short and carry no token or value (lib/stores/upstash-store.ts).
    return result("fail", `${store.kind}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

import "server-only";
import { isCloudflareChallenge } from "@/lib/upstream/backend";
import { readBoundedText } from "@/lib/upstream/http";
import type { CheckResult } from "./types";

export interface UpstreamTarget {
  check: string;
  url: string;
}

/** What `cause.code` of a failed fetch says (ECONNREFUSED, ENOTFOUND, …), when it says it. */
function causeCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === "string" && /^[A-Z_]{2,40}$/.test(code) ? code : undefined;
}

/**
 * One GET without credentials: any HTTP answer means the URL is reachable from this machine (an
 * answer 5xx is worth a look); the edge's challenge page means it is blocked; no answer fails.
 */
export async function checkReachable(target: UpstreamTarget, timeoutMs: number): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: target.check, status, detail });
  const { origin } = new URL(target.url);
  const started = Date.now();
  try {
    const response = await fetch(target.url, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    const body = await readBoundedText(response, 64 * 1024);
    const took = `${Date.now() - started} ms`;
    if (isCloudflareChallenge(response.status, body)) {
      return result("fail", `${origin} answered with the edge's challenge page (HTTP ${response.status}): calls from this machine are blocked`);
    }
    if (response.status >= 500) return result("warn", `${origin} answered HTTP ${response.status} in ${took}`);
    return result("ok", `${origin} answered HTTP ${response.status} in ${took}`);
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const why = timedOut ? `no answer within ${timeoutMs} ms` : (causeCode(error) ?? "network error");
    return result("fail", `${origin} could not be reached (${why})`);
  }
}

import { describeUpstreamFailure, pickUsageHeaders } from "@/lib/upstream/backend";
import { bodySnippet } from "@/lib/upstream/errors";
import { jsonResponse } from "./json";
import { LOG_PREFIX, type Logger } from "./logger";

/** Enough of an error body to describe it; the rest is never read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Reads at most `maxBytes` of a reply body as text and cancels the rest. */
export async function readBoundedText(response: Response, maxBytes = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (total >= maxBytes) break;
    }
  } catch {
    // A cut error body still tells us the status.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text + decoder.decode();
}

interface UsageLimit {
  resetsAt: number | null;
  resetsInSeconds: number | null;
  planType: string | null;
}

/** `{error:{type:"usage_limit_reached", resets_at, resets_in_seconds, plan_type}}` of a 429, if that is what it is. */
export function parseUsageLimit(bodyText: string): UsageLimit | undefined {
  let root: unknown;
  try {
    root = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const error = (root as { error?: Record<string, unknown> } | null)?.error;
  if (typeof error !== "object" || error === null) return undefined;
  if (error.type !== "usage_limit_reached" && error.code !== "usage_limit_reached") return undefined;
  const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
  return {
    resetsAt: num(error.resets_at),
    resetsInSeconds: num(error.resets_in_seconds),
    planType: typeof error.plan_type === "string" ? error.plan_type : null,
  };
}

/**
 * A non-2xx upstream /responses reply: one log line (fixed prefix, status, bounded snippet) and the
 * contract's `{error: "responses_request_failed", status, detail}` with the upstream status.
 */
export function upstreamFailureResponse(logger: Logger, upstream: Response, bodyText: string): Response {
  const { status } = upstream;
  logger.error(`${LOG_PREFIX} upstream /responses failed: status=${status} body=${bodySnippet(bodyText) ?? ""}`);
  const body: Record<string, unknown> = {
    error: "responses_request_failed",
    status,
    detail: describeUpstreamFailure(status, bodyText),
  };
  if (status === 429) {
    const usageLimit = parseUsageLimit(bodyText);
    if (usageLimit) body.usageLimit = usageLimit;
  }
  return jsonResponse(body, { status, headers: pickUsageHeaders(upstream.headers) });
}

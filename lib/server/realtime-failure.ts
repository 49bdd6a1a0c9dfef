import { isCloudflareChallenge } from "@/lib/upstream/backend";
import { parseJsonOrUndefined } from "@/lib/upstream/http";
import { errorResponse } from "./json";
import { LOG_PREFIX, type Logger } from "./logger";

/** `detail` of a `realtime_request_failed` reply is at most this many characters. */
export const MAX_REALTIME_DETAIL_CHARS = 300;

/**
 * The upstream error's `code` (or `type`) when it is a plain identifier. Nothing else of the
 * upstream body is ever passed on: free text could echo a credential.
 */
export function upstreamErrorCode(bodyText: string): string | undefined {
  const root = parseJsonOrUndefined(bodyText) as { error?: unknown } | undefined;
  const error = root?.error;
  const candidates =
    typeof error === "object" && error !== null
      ? [(error as Record<string, unknown>).code, (error as Record<string, unknown>).type]
      : [error];
  return candidates.find((value): value is string => typeof value === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(value));
}

/** A short explanation built from the status and a plain error code only. */
export function describeRealtimeFailure(status: number, bodyText: string): string {
  if (isCloudflareChallenge(status, bodyText)) {
    return `The provider's edge (Cloudflare) blocked the voice call from this server's address with a challenge page (HTTP ${status}).`;
  }
  const code = upstreamErrorCode(bodyText);
  const suffix = `(HTTP ${status}${code ? `, code ${code}` : ""})`;
  let text: string;
  if (status === 401 || status === 403) text = `The provider refused the voice call's credentials ${suffix}.`;
  else if (status === 429) text = `The provider is limiting voice calls ${suffix}. Try again later.`;
  else if (status >= 500) text = `The provider's voice service failed ${suffix}. Try again shortly.`;
  else text = `The provider rejected the voice call ${suffix}.`;
  return text.slice(0, MAX_REALTIME_DETAIL_CHARS);
}

/** The contract's `{error: "realtime_request_failed", status, detail}`, with one log line (no body text, no token). */
export function realtimeFailure(logger: Logger, transport: string, status: number, detail: string, logReason: string): Response {
  logger.error(`${LOG_PREFIX} upstream /realtime failed: transport=${transport} status=${status} ${logReason}`);
  return errorResponse(status, "realtime_request_failed", { status, detail: detail.slice(0, MAX_REALTIME_DETAIL_CHARS) });
}

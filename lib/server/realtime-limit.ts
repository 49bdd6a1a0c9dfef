import "server-only";
import type { ServerContext } from "./context";
import { errorResponse } from "./json";

/**
 * The voice throttle: `POST /realtime` and agent-voice starts of one login share one bucket
 * (`realtime.rateLimit`, `LWC_REALTIME_RATE_LIMIT_PER_MINUTE`). Null when the call may go ahead,
 * else the 429 `/responses` answers too: `{error: "rate_limited", retryAfterSeconds}` + `retry-after`.
 */
export async function realtimeRateLimited(ctx: ServerContext, loginId: string): Promise<Response | null> {
  if (!ctx.realtimeLimiter) return null;
  const limit = await ctx.realtimeLimiter.limit(loginId);
  if (limit.success) return null;
  const retryAfterSeconds = Math.max(1, Math.ceil((limit.reset - ctx.options.now()) / 1000));
  return errorResponse(429, "rate_limited", { retryAfterSeconds }, { "retry-after": String(retryAfterSeconds) });
}

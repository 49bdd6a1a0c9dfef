import "server-only";
import type { ServerContext } from "../context";
import { rateLimitedResponse } from "../http/json";

/**
 * The voice throttle: `POST /realtime` and agent-voice starts of one login share one bucket
 * (`realtime.rateLimit`, `LWC_REALTIME_RATE_LIMIT_PER_MINUTE`). Null when the call may go ahead,
 * else the 429 `/responses` answers too: `{error: "rate_limited", retryAfterSeconds}` + `retry-after`.
 */
export async function realtimeRateLimited(ctx: ServerContext, loginId: string): Promise<Response | null> {
  if (!ctx.realtimeLimiter) return null;
  const limit = await ctx.realtimeLimiter.limit(loginId);
  if (limit.success) return null;
  return rateLimitedResponse(limit.reset, ctx.options.now());
}

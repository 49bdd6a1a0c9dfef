import "server-only";
import type { ServerContext } from "../context";
import { rateLimited } from "../http/api-error";

/**
 * The voice throttle: `POST /realtime` and agent-voice starts of one login share one bucket
 * (`realtime.rateLimit`, `LWC_REALTIME_RATE_LIMIT_PER_MINUTE`). Over it, throws the refusal
 * `/responses` answers too: `{error: "rate_limited", retryAfterSeconds}` + `retry-after`.
 */
export async function limitVoiceCalls(ctx: ServerContext, loginId: string): Promise<void> {
  if (!ctx.realtimeLimiter) return;
  const limit = await ctx.realtimeLimiter.limit(loginId);
  if (!limit.success) throw rateLimited(limit.reset, ctx.options.now());
}

import type { MockContext } from "./context";

const PRIMARY_WINDOW_MINUTES = 300;
const SECONDARY_WINDOW_MINUTES = 10_080;

/**
 * The backend's rate-limit headers. Each served response uses 2% of the 5-hour window and 0.5% of
 * the weekly one, so a client can watch the numbers move.
 */
export function usageHeaders(context: MockContext, accountId: string, options: { exhausted?: boolean } = {}): Record<string, string> {
  const served = context.responsesServed.get(accountId) ?? 0;
  const now = Math.floor(Date.now() / 1000);
  const primaryUsed = options.exhausted ? 100 : Math.min(100, served * 2);
  const secondaryUsed = options.exhausted ? 100 : Math.min(100, served * 0.5);
  return {
    "x-codex-primary-used-percent": String(primaryUsed),
    "x-codex-primary-window-minutes": String(PRIMARY_WINDOW_MINUTES),
    "x-codex-primary-reset-at": String(now + 3 * 3600),
    "x-codex-primary-reset-after-seconds": String(3 * 3600),
    "x-codex-secondary-used-percent": String(secondaryUsed),
    "x-codex-secondary-window-minutes": String(SECONDARY_WINDOW_MINUTES),
    "x-codex-secondary-reset-at": String(now + 4 * 86_400),
    "x-codex-secondary-reset-after-seconds": String(4 * 86_400),
    "x-codex-credits-has-credits": "false",
    "x-codex-credits-unlimited": "false",
    "x-codex-credits-balance": "0",
  };
}

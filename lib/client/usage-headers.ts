/** One rate-limit window of the provider's plan, as reported by the `x-codex-<window>-*` reply headers. */
export interface UsageWindow {
  /** Percent of the window already used, 0–100. */
  usedPercent: number;
  /** Length of the window in minutes, when reported. */
  windowMinutes?: number;
  /** When the window resets, epoch milliseconds, when reported. */
  resetsAt?: number;
}

export interface UsageSnapshot {
  primary?: UsageWindow;
  secondary?: UsageWindow;
}

const FALLBACK_HEADER = "x-login-with-provider-service-tier-fallback";

function readNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

function readWindow(headers: Headers, window: "primary" | "secondary"): UsageWindow | undefined {
  const usedPercent = readNumber(headers, `x-codex-${window}-used-percent`);
  if (usedPercent === undefined) return undefined;
  const windowMinutes = readNumber(headers, `x-codex-${window}-window-minutes`);
  const resetAtSeconds = readNumber(headers, `x-codex-${window}-reset-at`);
  return {
    usedPercent: Math.min(100, Math.max(0, usedPercent)),
    windowMinutes,
    resetsAt: resetAtSeconds === undefined ? undefined : resetAtSeconds * 1000,
  };
}

/** Reads the usage windows from a /responses reply; undefined when the reply carried none. */
export function readUsageHeaders(headers: Headers): UsageSnapshot | undefined {
  const primary = readWindow(headers, "primary");
  const secondary = readWindow(headers, "secondary");
  if (!primary && !secondary) return undefined;
  return { primary, secondary };
}

/** The service tier the proxy fell back to after upstream refused the fast tier, or undefined. */
export function readServiceTierFallback(headers: Headers): string | undefined {
  return headers.get(FALLBACK_HEADER) ?? undefined;
}

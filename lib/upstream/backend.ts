import { parseJsonOrUndefined } from "./http";
import { upstreamSnippet } from "./redact";
import type { BackendAuth, UpstreamConfig } from "./types";

/**
 * Headers for every model-backend call, as a plain record with lower-case names (fetch builds its one
 * Headers list from it). The auth headers are set last so `extra` can never replace the bearer token
 * or the account id, whatever the case of its names. `version` is what Codex sends on every call of
 * its built-in provider: the backend gates models on it at inference.
 */
export function backendHeaders(config: UpstreamConfig, auth: BackendAuth, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  headers.authorization = `Bearer ${auth.accessToken}`;
  headers["chatgpt-account-id"] = auth.accountId;
  headers.originator = config.originator;
  headers["user-agent"] = config.userAgent;
  headers.version = config.clientVersion;
  return headers;
}

const CLOUDFLARE_MARKERS = [/just a moment/i, /cf-chl/i, /challenge-platform/i, /attention required/i, /cf_chl_opt/i];

/** True for the edge's HTML challenge page that datacenter IPs sometimes get instead of an answer. */
export function isCloudflareChallenge(status: number, bodyText: string): boolean {
  if (status !== 403 && status !== 503 && status !== 429) return false;
  const looksHtml = /<(!doctype html|html|head|body)[\s>]/i.test(bodyText);
  return looksHtml && CLOUDFLARE_MARKERS.some((marker) => marker.test(bodyText));
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function describeReset(seconds: unknown): string {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return "";
  const whole = Math.round(seconds);
  const minutes = Math.ceil(whole / 60);
  return ` It resets in ${whole} seconds (about ${minutes} minute${minutes === 1 ? "" : "s"}).`;
}

/**
 * A human explanation of a failed backend reply, safe to log and show: built from the status and
 * known fields only (the body's `detail` or `error.message`, as a snippet without tokens and with
 * runs of `inputs`, the request's own texts, replaced by `[input]`; the rest of the body is not copied).
 */
export function describeUpstreamFailure(status: number, bodyText: string, inputs: readonly string[] = []): string {
  if (isCloudflareChallenge(status, bodyText)) {
    return (
      `The provider's edge (Cloudflare) blocked the request from this server's IP address with a ` +
      `challenge page (HTTP ${status}). This happens to some datacenter networks; try again later ` +
      `or run the server from another network.`
    );
  }
  const root = asRecord(parseJsonOrUndefined(bodyText));
  const error = asRecord(root?.error);
  if (error && (error.type === "usage_limit_reached" || error.code === "usage_limit_reached")) {
    const plan = typeof error.plan_type === "string" ? ` for the ${error.plan_type} plan` : "";
    return `The ChatGPT usage limit${plan} has been reached.${describeReset(error.resets_in_seconds)}`;
  }
  if (typeof root?.detail === "string" && root.detail.trim() !== "") {
    return upstreamSnippet(root.detail, { inputs }) as string;
  }
  if (typeof error?.message === "string" && error.message.trim() !== "") {
    return `Upstream answered ${status}: ${upstreamSnippet(error.message, { inputs })}`;
  }
  return `Upstream answered ${status}`;
}

/** Prefix of the backend's usage headers (plan windows, credits), worth passing to the browser. */
const USAGE_HEADER_PREFIX = "x-codex-";

/** The backend's usage headers (lower-case names), as a plain record to build a reply's headers from. */
export function pickUsageHeaders(headers: Headers): Record<string, string> {
  const picked: Record<string, string> = {};
  // Headers iterates lower-case names.
  headers.forEach((value, name) => {
    if (name.startsWith(USAGE_HEADER_PREFIX)) picked[name] = value;
  });
  return picked;
}

import "server-only";
import { isCloudflareChallenge } from "@/lib/upstream/backend";
import { readUpstreamErrorBody } from "@/lib/upstream/error-body";
import type { ProviderAuthError } from "@/lib/upstream/errors";
import { parseJsonOrUndefined } from "@/lib/upstream/http";
import { upstreamSnippet } from "@/lib/upstream/redact";
import { errorResponse } from "../http/api-error";
import { LOG_PREFIX, type Logger } from "@/lib/logger";
import { bodyForLog, describeProviderErrorForLog } from "../http/upstream-log";

/**
 * `detail` of a `realtime_request_failed` reply is at most this many characters: our sentence,
 * then the provider's own words (a snippet of at most SNIPPET_MAX_CHARS).
 */
export const MAX_REALTIME_DETAIL_CHARS = 500;

/** The upstream error's `code` (or `type`) when it is a plain identifier. */
export function upstreamErrorCode(bodyText: string): string | undefined {
  const root = parseJsonOrUndefined(bodyText) as { error?: unknown } | undefined;
  const error = root?.error;
  const candidates =
    typeof error === "object" && error !== null
      ? [(error as Record<string, unknown>).code, (error as Record<string, unknown>).type]
      : [error];
  return candidates.find((value): value is string => typeof value === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(value));
}

/**
 * What the provider said, for `detail`: a JSON error's message (or `detail`), else the body itself
 * (an HTML page's text without its tags), as a snippet without tokens and with runs of `inputs`
 * replaced by `[input]`. None for the edge's challenge page: our sentence says what it is.
 */
function providerWords(status: number, bodyText: string, inputs: readonly string[] = []): string | undefined {
  if (isCloudflareChallenge(status, bodyText)) return undefined;
  const error = readUpstreamErrorBody(bodyText);
  const text = error.message ?? error.detail ?? bodyText.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ");
  return upstreamSnippet(text, { inputs });
}

/** Our sentence from the status and a plain error code, then what the provider said. */
export function describeRealtimeFailure(status: number, bodyText: string, inputs: readonly string[] = []): string {
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
  const words = providerWords(status, bodyText, inputs);
  return (words ? `${text} The provider said: ${words}` : text).slice(0, MAX_REALTIME_DETAIL_CHARS);
}

/** The contract's (docs/api.md) `{error: "realtime_request_failed", status, detail}`, with one log line. */
function realtimeFailure(logger: Logger, transport: string, status: number, detail: string, logReason: string): Response {
  logger.error(`${LOG_PREFIX} upstream /realtime failed: transport=${transport} status=${status} ${logReason}`);
  return errorResponse("realtime_request_failed", { status, detail: detail.slice(0, MAX_REALTIME_DETAIL_CHARS) }, { status });
}

/**
 * The provider answered non-2xx: its status (502 for one that is not an error status), `detail` with
 * its words, and a log line with its status, plain code and body snippet. `inputs` are the request's
 * own texts (offer, instructions, voice, model), replaced by `[input]` in both.
 */
export function upstreamRealtimeFailure(
  logger: Logger,
  transport: string,
  reply: { status: number; bodyText: string },
  inputs: readonly string[],
): Response {
  const status = reply.status >= 400 && reply.status <= 599 ? reply.status : 502;
  const code = upstreamErrorCode(reply.bodyText);
  const logReason = isCloudflareChallenge(reply.status, reply.bodyText)
    ? `upstream=${reply.status} type=cloudflare_challenge`
    : `upstream=${reply.status}${code ? ` code=${code}` : ""}${bodyForLog(reply.bodyText, inputs)}`;
  return realtimeFailure(logger, transport, status, describeRealtimeFailure(reply.status, reply.bodyText, inputs), logReason);
}

/** A 2xx that is not an SDP: 502 with a fixed sentence; the log line has the content type and a body snippet. */
export function notSdpRealtimeFailure(
  logger: Logger,
  transport: string,
  reply: { status: number; contentType: string; bodyText: string },
  inputs: readonly string[],
): Response {
  const contentType = /^[\w.+/-]{1,100}/.exec(reply.contentType)?.[0] ?? "none";
  return realtimeFailure(
    logger,
    transport,
    502,
    `The voice service answered HTTP ${reply.status} without an SDP answer (content-type ${contentType}).`,
    `upstream=${reply.status} answer is not an SDP (content-type=${contentType})${bodyForLog(reply.bodyText, inputs)}`,
  );
}

/** The provider could not be reached: 502 with the error's fixed sentence; the address goes to the log line only. */
export function networkRealtimeFailure(logger: Logger, transport: string, error: ProviderAuthError): Response {
  return realtimeFailure(logger, transport, 502, error.message, describeProviderErrorForLog(error));
}

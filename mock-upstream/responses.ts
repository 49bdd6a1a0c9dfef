import { randomUUID } from "node:crypto";
import { authenticateBackendCall, claimedAccountId, sendUnauthorized } from "./backend-auth";
import { sendCloudflareChallenge, sendInputEchoed, sendServerError, sendUsageLimit } from "./backend-errors";
import type { MockContext, RouteHandler } from "./context";
import { DEFAULT_SLOW_FIRST_BYTE_MS, DEFAULT_SLOW_STREAM_CHUNK_MS, markerFaults } from "./faults";
import { delayUnlessClosed, isRecord, sendJson } from "./http-util";
import { writeToolCallStream } from "./codex/tool-call-stream";
import { lastUserText } from "./reply-text";
import { writeResponseStream } from "./responses-stream";
import { validateResponsesBody } from "./responses-validation";
import type { FaultRule, MockFault } from "./types";
import { usageHeaders } from "./usage-headers";

/** A fault fires when the request's own marker names it, or an armed rule for the account matches. */
function faultTrigger(context: MockContext, markers: Set<MockFault>) {
  return (fault: MockFault, accountId: string | undefined): FaultRule | undefined =>
    markers.has(fault) ? { fault } : context.faults.take(fault, accountId);
}

/** The header codex sends with a request in the "responses lite" dialect. */
export const RESPONSES_LITE_HEADER = "x-openai-internal-codex-responses-lite";

/** The words a backend that requires the lite dialect for a model might answer the plain shape with. */
const LITE_REQUIRED = (slug: string) =>
  `The '${slug}' model requires the Responses Lite request format. Please upgrade to the latest app or CLI and try again.`;

/** POST /backend-api/codex/responses */
export const handleResponses: RouteHandler = async (context, call) => {
  const lite = call.request.headers[RESPONSES_LITE_HEADER] === "true";
  if (call.record) context.recorder.update(call.record, { dialect: lite ? "lite" : "plain" });
  const rawInput = isRecord(call.body.value) ? call.body.value.input : undefined;
  // Only the newest user message's markers act: one typed earlier in the history must not fire again.
  const fires = faultTrigger(context, markerFaults(lastUserText(rawInput)));
  const claimed = claimedAccountId(context, call);

  const slowStream = fires("slow_stream", claimed);
  const slow = fires("slow_first_byte", claimed);
  if (slow && !(await delayUnlessClosed(call.response, slow.delayMs ?? DEFAULT_SLOW_FIRST_BYTE_MS))) return;
  if (fires("cloudflare_challenge", claimed)) return sendCloudflareChallenge(call);

  const caller = authenticateBackendCall(context, call);
  if (!caller) return;
  if (fires("backend_unauthorized", caller.accountId)) {
    return sendUnauthorized(call, "Provided authentication token is expired. Please try signing in again.", "token_expired");
  }
  if (fires("server_error", caller.accountId)) return sendServerError(call);
  if (fires("usage_limit", caller.accountId)) return sendUsageLimit(context, call, caller.accountId, caller.plan);
  if (fires("input_echoed", caller.accountId)) return sendInputEchoed(call, lastUserText(rawInput));
  // A backend that does not speak the lite dialect reads the request as a plain one: it has no
  // top-level instructions.
  if (lite && fires("responses_lite_refused", caller.accountId)) return sendJson(call.response, 400, { detail: "Instructions are required" });

  const codexClient = typeof call.request.headers["x-codex-turn-metadata"] === "string";
  const version = call.request.headers.version;
  const validation = validateResponsesBody(call.body, caller.plan, {
    codexClient,
    clientVersion: typeof version === "string" ? version : undefined,
    lite,
  });
  if (!validation.ok) return sendJson(call.response, validation.status, { detail: validation.detail });
  const request = validation.request;
  if (!lite && request.model.use_responses_lite === true && fires("responses_lite_required", caller.accountId)) {
    return sendJson(call.response, 400, { detail: LITE_REQUIRED(request.model.slug) });
  }
  if (request.serviceTier !== null && fires("fast_tier_rejected", caller.accountId)) {
    return sendJson(call.response, 400, { detail: `Unsupported service_tier: ${request.serviceTier}` });
  }
  const cut = fires("stream_cut", caller.accountId);
  const scripted = context.codex.scripts.answer(request.body, request.input);

  context.responsesServed.set(caller.accountId, (context.responsesServed.get(caller.accountId) ?? 0) + 1);
  call.response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-request-id": randomUUID(),
    "openai-model": request.model.slug,
    ...usageHeaders(context, caller.accountId),
  });
  call.response.flushHeaders();
  if (scripted && scripted.kind !== "message") return writeToolCallStream(call.response, request, scripted);
  await writeResponseStream(call.response, request, {
    chunkDelayMs: slowStream ? (slowStream.delayMs ?? DEFAULT_SLOW_STREAM_CHUNK_MS) : context.options.streamChunkDelayMs,
    cutAfterDeltas: cut ? 2 : undefined,
    onCut: call.markServerCut,
    reply: scripted?.kind === "message" ? scripted.text : undefined,
  });
};

import { randomBytes } from "node:crypto";
import type { RouteCall } from "../context";
import { delayUnlessClosed, isRecord } from "../http-util";
import { replyFor, usageFor, wordPieces } from "../reply-text";
import { SIWC_SWITCHES, type SiwcSwitch, type SiwcSwitchRule } from "./switches";

type StreamSwitch = Extract<SiwcSwitch, `stream_${string}`>;

/** The switches that shape a /v1/responses stream (the `stream_` ones of SIWC_SWITCHES). */
export const STREAM_SWITCHES: readonly StreamSwitch[] = SIWC_SWITCHES.filter((name): name is StreamSwitch => name.startsWith("stream_"));

const DEFAULT_LONG_STREAM_MS = 190_000;
const LONG_STREAM_TICK_MS = 1_000;

interface SiwcStreamInput {
  body: Record<string, unknown>;
  eventLines: boolean;
  chunkDelayMs: number;
  fault: SiwcSwitchRule | undefined;
  /** False: the stream fails with model_not_found, as the direct route does. */
  modelKnown: boolean;
}

const FAILURES: Partial<Record<SiwcSwitch, { code: string; message: string }>> = {
  stream_failed_usage_limit: { code: "subscription_sharing_usage_limit_exceeded", message: "You've reached your ChatGPT plan's usage limit for this app." },
  stream_failed_usage_unavailable: { code: "subscription_sharing_usage_unavailable", message: "Plan usage is temporarily unavailable." },
  stream_model_not_found: { code: "model_not_found", message: "The requested model does not exist or you do not have access to it." },
};

function id(prefix: string): string {
  return `${prefix}_${randomBytes(20).toString("hex")}`;
}

/**
 * The direct route's SSE: created, in_progress, the message item word by word, completed with usage.
 * `fault` bends it as one of §11's stream switches.
 */
export async function writeSiwcStream(call: RouteCall, input: SiwcStreamInput): Promise<void> {
  const { response } = call;
  const fault = input.fault?.switch;
  const newline = fault === "stream_crlf" ? "\r\n" : "\n";
  let sequence = 0;
  const send = (type: string, payload: Record<string, unknown>): void => {
    if (response.destroyed || response.writableEnded) return;
    const data = `data: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}${newline}`;
    response.write(`${input.eventLines ? `event: ${type}${newline}` : ""}${data}${newline}`);
  };
  const finish = () => new Promise<void>((resolve) => response.end(resolve));

  response.writeHead(200, {
    ...(fault === "stream_no_content_type" ? {} : { "content-type": "text/event-stream; charset=utf-8" }),
    "cache-control": "no-cache",
  });
  response.flushHeaders();

  const model = String(input.body.model);
  const envelope = {
    id: id("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress",
    model,
    output: [] as unknown[],
    store: false,
    instructions: typeof input.body.instructions === "string" ? input.body.instructions : null,
    error: null as unknown,
    incomplete_details: null as unknown,
    usage: null as unknown,
  };
  send("response.created", { response: envelope });
  send("response.in_progress", { response: envelope });

  const failure = input.modelKnown ? (fault ? FAILURES[fault] : undefined) : FAILURES.stream_model_not_found;
  if (failure?.code === "model_not_found") {
    send("response.failed", { response: { ...envelope, status: "failed", error: failure } });
    return finish();
  }

  const items = (input.body.input as unknown[]).filter(isRecord);
  const reply = replyFor(items);
  const messageId = id("msg");
  const phase = fault === "stream_phase" ? { phase: "final_answer" } : {};
  send("response.output_item.added", {
    output_index: 0,
    item: { id: messageId, type: "message", status: "in_progress", role: "assistant", content: [], ...phase },
  });
  send("response.content_part.added", { item_id: messageId, output_index: 0, content_index: 0, part: { type: "output_text", annotations: [], text: "" } });
  const pieces = wordPieces(reply);
  for (const [index, piece] of pieces.entries()) {
    if (!(await delayUnlessClosed(response, input.chunkDelayMs))) return;
    send("response.output_text.delta", { item_id: messageId, output_index: 0, content_index: 0, delta: piece });
    if (index === 0 && failure) {
      // Mid-stream: the plan's limit (or availability) ends the response after text has begun.
      send("response.failed", { response: { ...envelope, status: "failed", error: failure } });
      return finish();
    }
    if (index === 0 && fault === "stream_error_event") {
      send("error", { code: "server_error", message: "The server had an error while processing your request." });
      return finish();
    }
  }
  if (fault === "stream_long") {
    const until = Date.now() + (input.fault?.durationMs ?? DEFAULT_LONG_STREAM_MS);
    while (Date.now() < until) {
      if (!(await delayUnlessClosed(response, Math.min(LONG_STREAM_TICK_MS, until - Date.now())))) return;
      send("response.output_text.delta", { item_id: messageId, output_index: 0, content_index: 0, delta: "." });
    }
  }
  if (fault === "stream_eof_no_completed") return finish();
  if (fault === "stream_done_before_completed") {
    response.write(`data: [DONE]${newline}${newline}`);
    return finish();
  }
  const part = { type: "output_text", annotations: [], text: reply };
  send("response.output_text.done", { item_id: messageId, output_index: 0, content_index: 0, text: reply });
  send("response.content_part.done", { item_id: messageId, output_index: 0, content_index: 0, part });
  const message = { id: messageId, type: "message", status: "completed", role: "assistant", content: [part], ...phase };
  send("response.output_item.done", { output_index: 0, item: message });
  const instructions = typeof input.body.instructions === "string" ? input.body.instructions : "";
  const usage = usageFor(instructions, items, reply, null, false);
  if (fault === "stream_incomplete") {
    send("response.incomplete", {
      response: { ...envelope, status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [message], usage },
    });
    return finish();
  }
  const output = fault === "stream_empty_output" ? [] : [message];
  send("response.completed", { response: { ...envelope, status: "completed", output, usage } });
  return finish();
}

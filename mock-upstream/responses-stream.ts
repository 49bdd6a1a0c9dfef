import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { delayUnlessClosed } from "./http-util";
import { generatedPng, GENERATED_SIZE, IMAGE_REFUSAL_MARKER, imageCallId, imageGenerationTool, partialImageCount } from "./images-out";
import { instructionsNote, lastUserText, reasoningSummaryFor, replyFor, titleReplyFor, usageFor, wordPieces } from "./reply-text";
import { structuredReply } from "./structured-reply";
import { citedAnswer, searchQuery, webSearchCallId, webSearchTool, WEB_SEARCH_SOURCES_INCLUDE, type UrlCitation } from "./web-search";
import type { ValidResponsesRequest } from "./responses-validation";

export function itemId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString("hex")}`;
}

type StreamOutcome = "completed" | "aborted" | "cut";

interface StreamOptions {
  chunkDelayMs: number;
  /** Cut the connection after this many text deltas (stream_cut fault). */
  cutAfterDeltas?: number;
  /** Called right before the deliberate cut, so the close is not taken for a client abort. */
  onCut?: () => void;
  /** Reply text instead of the echo (scripted codex turns). */
  reply?: string;
}

/** The envelope of the response object in created/in_progress/completed events. */
export function responseEnvelope(request: ValidResponsesRequest, id: string, createdAt: number) {
  const body = request.body;
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions,
    max_output_tokens: null,
    max_tool_calls: null,
    model: request.model.slug,
    output: [] as unknown[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: request.reasoningEffort, summary: request.reasoningSummary },
    service_tier: request.serviceTier ?? "default",
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: (body.text as { verbosity?: string } | undefined)?.verbosity ?? "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: null as unknown,
    user: null,
    metadata: {},
  };
}

/**
 * Writes the backend's SSE sequence: created, in_progress, an optional reasoning item (with summary
 * parts when asked for), the assistant message word by word, then response.completed with usage.
 */
export async function writeResponseStream(
  response: ServerResponse,
  request: ValidResponsesRequest,
  options: StreamOptions,
): Promise<StreamOutcome> {
  let sequence = 0;
  let deltasSent = 0;
  const send = (type: string, payload: Record<string, unknown>): boolean => {
    if (response.destroyed || response.writableEnded) return false;
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`);
    return true;
  };
  const pause = () => delayUnlessClosed(response, options.chunkDelayMs);

  const reasoned = request.reasoningEffort !== "none";
  const summary = reasoned && request.reasoningSummary ? reasoningSummaryFor(request.input) : null;
  // The echo, with the instructions it got; JSON instead when the request asks for structured output;
  // a title when the instructions ask for one.
  const echo = replyFor(request.input);
  const answer =
    options.reply ?? titleReplyFor(request.instructions, request.input) ?? structuredReply(request.body, echo) ?? echo + instructionsNote(request.instructions);
  // With the web_search tool: one search for the question, and an answer citing what it found.
  const query = webSearchTool(request.tools) ? searchQuery(lastUserText(request.input)) : null;
  const cited = query === null ? null : citedAnswer(answer, query);
  const reply = cited?.text ?? answer;
  const citations: UrlCitation[] = cited?.citations ?? [];
  const envelope = responseEnvelope(request, itemId("resp"), Math.floor(Date.now() / 1000));
  const output: unknown[] = [];
  let outputIndex = 0;

  send("response.created", { response: envelope });
  send("response.in_progress", { response: envelope });

  if (reasoned) {
    const id = itemId("rs");
    const index = outputIndex++;
    send("response.output_item.added", { output_index: index, item: { id, type: "reasoning", summary: [] } });
    if (summary !== null) {
      send("response.reasoning_summary_part.added", {
        item_id: id,
        output_index: index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const piece of wordPieces(summary)) {
        if (!(await pause())) return "aborted";
        send("response.reasoning_summary_text.delta", { item_id: id, output_index: index, summary_index: 0, delta: piece });
      }
      send("response.reasoning_summary_text.done", { item_id: id, output_index: index, summary_index: 0, text: summary });
      send("response.reasoning_summary_part.done", {
        item_id: id,
        output_index: index,
        summary_index: 0,
        part: { type: "summary_text", text: summary },
      });
    }
    const item = {
      id,
      type: "reasoning",
      summary: summary === null ? [] : [{ type: "summary_text", text: summary }],
      ...(request.include.includes("reasoning.encrypted_content")
        ? { encrypted_content: `gAAAAAB${randomBytes(96).toString("base64url")}` }
        : {}),
    };
    output.push(item);
    send("response.output_item.done", { output_index: index, item });
  }

  if (query !== null) {
    const id = webSearchCallId();
    const index = outputIndex++;
    send("response.output_item.added", { output_index: index, item: { id, type: "web_search_call", status: "in_progress" } });
    for (const stage of ["in_progress", "searching", "completed"]) {
      if (!(await pause())) return "aborted";
      send(`response.web_search_call.${stage}`, { output_index: index, item_id: id });
    }
    const sources = request.include.includes(WEB_SEARCH_SOURCES_INCLUDE)
      ? { sources: citations.map((citation) => ({ type: "url", url: citation.url })) }
      : {};
    const item = { id, type: "web_search_call", status: "completed", action: { type: "search", query, ...sources } };
    output.push(item);
    send("response.output_item.done", { output_index: index, item });
  }

  const imageTool = imageGenerationTool(request.tools);
  if (imageTool) {
    const prompt = lastUserText(request.input);
    if (prompt.includes(IMAGE_REFUSAL_MARKER)) {
      const error = { code: "moderation_blocked", message: "Your request was rejected by the safety system. The image could not be generated." };
      send("response.failed", { response: { ...envelope, status: "failed", error, output } });
      await new Promise<void>((resolve) => response.end(resolve));
      return "completed";
    }
    const id = imageCallId();
    const index = outputIndex++;
    send("response.output_item.added", { output_index: index, item: { id, type: "image_generation_call", status: "in_progress" } });
    const steps = partialImageCount(imageTool);
    for (let step = 0; step < steps; step++) {
      if (!(await pause())) return "aborted";
      send("response.image_generation_call.partial_image", {
        item_id: id,
        output_index: index,
        partial_image_index: step,
        partial_image_b64: generatedPng(prompt, step, steps).toString("base64"),
      });
      if (options.cutAfterDeltas !== undefined) {
        // A broken stream: the first partial image arrived, the final one never does.
        await new Promise<void>((resolve) => response.write("", () => resolve()));
        options.onCut?.();
        response.destroy();
        return "cut";
      }
    }
    if (!(await pause())) return "aborted";
    const item = {
      id,
      type: "image_generation_call",
      status: "completed",
      output_format: "png",
      size: `${GENERATED_SIZE.width}x${GENERATED_SIZE.height}`,
      revised_prompt: prompt,
      result: generatedPng(prompt, steps, steps).toString("base64"),
    };
    output.push(item);
    send("response.output_item.done", { output_index: index, item });
  }

  const messageId = itemId("msg");
  const messageIndex = outputIndex++;
  send("response.output_item.added", {
    output_index: messageIndex,
    item: { id: messageId, type: "message", status: "in_progress", content: [], role: "assistant" },
  });
  send("response.content_part.added", {
    item_id: messageId,
    output_index: messageIndex,
    content_index: 0,
    part: { type: "output_text", annotations: [], logprobs: [], text: "" },
  });
  for (const piece of wordPieces(reply)) {
    if (!(await pause())) return "aborted";
    send("response.output_text.delta", { item_id: messageId, output_index: messageIndex, content_index: 0, delta: piece, logprobs: [] });
    deltasSent++;
    if (options.cutAfterDeltas !== undefined && deltasSent >= options.cutAfterDeltas) {
      // Give the bytes a moment to leave, then drop the connection without a terminating chunk.
      await new Promise<void>((resolve) => response.write("", () => resolve()));
      options.onCut?.();
      response.destroy();
      return "cut";
    }
  }
  citations.forEach((annotation, annotationIndex) => {
    send("response.output_text.annotation.added", {
      item_id: messageId,
      output_index: messageIndex,
      content_index: 0,
      annotation_index: annotationIndex,
      annotation,
    });
  });
  const part = { type: "output_text", annotations: citations, logprobs: [], text: reply };
  send("response.output_text.done", { item_id: messageId, output_index: messageIndex, content_index: 0, text: reply, logprobs: [] });
  send("response.content_part.done", { item_id: messageId, output_index: messageIndex, content_index: 0, part });
  const message = { id: messageId, type: "message", status: "completed", content: [part], role: "assistant" };
  output.push(message);
  send("response.output_item.done", { output_index: messageIndex, item: message });

  const usage = usageFor(request.instructions, request.input, reply, summary, reasoned);
  if (!send("response.completed", { response: { ...envelope, status: "completed", output, usage } })) return "aborted";
  await new Promise<void>((resolve) => response.end(resolve));
  return "completed";
}

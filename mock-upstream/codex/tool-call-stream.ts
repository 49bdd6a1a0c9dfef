import type { ServerResponse } from "node:http";
import { itemId, responseEnvelope } from "../responses-stream";
import { usageFor } from "../reply-text";
import type { ValidResponsesRequest } from "../responses-validation";

type ToolCallAnswer =
  /** arguments: JSON text, as the Responses API sends it. */
  | { kind: "function_call"; name: string; arguments: string; callId: string }
  /** A freeform tool (apply_patch): raw text input. */
  | { kind: "custom_tool_call"; name: string; input: string; callId: string };

/** The SSE sequence of a response whose only output is one tool call. */
export async function writeToolCallStream(response: ServerResponse, request: ValidResponsesRequest, answer: ToolCallAnswer): Promise<void> {
  let sequence = 0;
  const send = (type: string, payload: Record<string, unknown>) => {
    if (response.destroyed || response.writableEnded) return;
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`);
  };
  const envelope = responseEnvelope(request, itemId("resp"), Math.floor(Date.now() / 1000));
  const custom = answer.kind === "custom_tool_call";
  const text = custom ? answer.input : answer.arguments;
  const id = itemId(custom ? "ctc" : "fc");
  const field = custom ? "input" : "arguments";
  const started = { id, type: answer.kind, status: "in_progress", [field]: "", call_id: answer.callId, name: answer.name };
  const item = { ...started, status: "completed", [field]: text };
  const deltaEvent = custom ? "response.custom_tool_call_input" : "response.function_call_arguments";

  send("response.created", { response: envelope });
  send("response.in_progress", { response: envelope });
  send("response.output_item.added", { output_index: 0, item: started });
  send(`${deltaEvent}.delta`, { item_id: id, output_index: 0, delta: text });
  send(`${deltaEvent}.done`, { item_id: id, output_index: 0, [field]: text });
  send("response.output_item.done", { output_index: 0, item });
  const usage = usageFor(request.instructions, request.input, text, null, false);
  send("response.completed", { response: { ...envelope, status: "completed", output: [item], usage } });
  await new Promise<void>((resolve) => response.end(resolve));
}

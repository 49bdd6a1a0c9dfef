import type { ServerResponse } from "node:http";
import { itemId, responseEnvelope } from "../responses-stream";
import { usageFor } from "../reply-text";
import type { ValidResponsesRequest } from "../responses-validation";

export interface FunctionCallAnswer {
  name: string;
  /** JSON text, as the Responses API sends it. */
  arguments: string;
  callId: string;
}

/** The SSE sequence of a response whose only output is one function call. */
export async function writeFunctionCallStream(response: ServerResponse, request: ValidResponsesRequest, answer: FunctionCallAnswer): Promise<void> {
  let sequence = 0;
  const send = (type: string, payload: Record<string, unknown>) => {
    if (response.destroyed || response.writableEnded) return;
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`);
  };
  const envelope = responseEnvelope(request, itemId("resp"), Math.floor(Date.now() / 1000));
  const id = itemId("fc");
  const started = { id, type: "function_call", status: "in_progress", arguments: "", call_id: answer.callId, name: answer.name };
  const item = { ...started, status: "completed", arguments: answer.arguments };

  send("response.created", { response: envelope });
  send("response.in_progress", { response: envelope });
  send("response.output_item.added", { output_index: 0, item: started });
  send("response.function_call_arguments.delta", { item_id: id, output_index: 0, delta: answer.arguments });
  send("response.function_call_arguments.done", { item_id: id, output_index: 0, arguments: answer.arguments });
  send("response.output_item.done", { output_index: 0, item });
  const usage = usageFor(request.instructions, request.input, answer.arguments, null, false);
  send("response.completed", { response: { ...envelope, status: "completed", output: [item], usage } });
  await new Promise<void>((resolve) => response.end(resolve));
}

/** Proof that the stream is shaped right: the AI SDK's own Responses model reads it. */
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import clientVersionFile from "@/lib/upstream/client-version.json";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 2 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());
beforeEach(() => mock.clearFaults());

function model() {
  return createOpenAI({
    baseURL: mock.codexBaseUrl,
    apiKey: tokens.access_token,
    headers: { "ChatGPT-Account-ID": "acct_demo", originator: "codex_cli_rs", version: clientVersionFile.clientVersion },
  }).responses("gpt-5.5");
}

const providerOptions = {
  openai: { store: false, instructions: "You are a helpful assistant.", reasoningSummary: "auto", reasoningEffort: "low" },
};

describe("AI SDK streamText against the mock", () => {
  it("streams an image generation as partial images, then the final image", async () => {
    const openai = createOpenAI({ baseURL: mock.codexBaseUrl, apiKey: tokens.access_token, headers: { "ChatGPT-Account-ID": "acct_demo" } });
    const result = streamText({
      model: model(),
      prompt: "a red fox",
      providerOptions,
      maxRetries: 0,
      tools: { image_generation: openai.tools.imageGeneration({ outputFormat: "png", partialImages: 2 }) },
      toolChoice: { type: "tool", toolName: "image_generation" },
    });
    // Each partial image and the final one reach the UI stream as an output of the same tool call
    // (the UI stream does not keep the provider's `preliminary` flag: the last output is the image).
    const outputs: { toolCallId: string; png: Buffer }[] = [];
    for await (const chunk of result.toUIMessageStream()) {
      if (chunk.type !== "tool-output-available") continue;
      outputs.push({ toolCallId: chunk.toolCallId, png: Buffer.from((chunk.output as { result: string }).result, "base64") });
    }
    expect(outputs).toHaveLength(3);
    expect(new Set(outputs.map((output) => output.toolCallId)).size).toBe(1);
    for (const { png } of outputs) expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
    expect(outputs[2]!.png.equals(outputs[0]!.png)).toBe(false);
  });

  it("yields the exact text, the reasoning summary and the usage", async () => {
    const result = streamText({ model: model(), prompt: "Hello from the SDK", providerOptions, maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.join("")).toBe('You said: "Hello from the SDK".');
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.text).toBe('You said: "Hello from the SDK".');
    expect(await result.reasoningText).toBe("Thinking about: Hello from the SDK");
    expect(await result.finishReason).toBe("stop");
    const usage = await result.usage;
    // input: ceil((28 + 18) / 4) = 12; output: 6 reply words + 6 summary words x 4 = 30.
    expect(usage.inputTokens).toBe(12);
    expect(usage.outputTokens).toBe(30);
    expect(usage.totalTokens).toBe(42);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(24);

    const request = mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    expect(request.headers["chatgpt-account-id"]).toBe("acct_demo");
    expect(request.headers.originator).toBe("codex_cli_rs");
    expect(request.body).toMatchObject({ store: false, stream: true, model: "gpt-5.5", include: ["reasoning.encrypted_content"] });
  });

  it("surfaces a request the backend rejects as an error", async () => {
    const result = streamText({ model: model(), prompt: "hi", providerOptions: { openai: { store: true, instructions: "x" } }, maxRetries: 0, onError: () => {} });
    const errors: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === "error") errors.push(part.error);
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as { responseBody?: string }).responseBody)).toContain("Store must be set to false");
  });

  it("surfaces stream_cut as an error without a normal finish", async () => {
    mock.addFault({ fault: "stream_cut" });
    const result = streamText({ model: model(), prompt: "please cut me off mid sentence", providerOptions, maxRetries: 0, onError: () => {} });
    const errors: unknown[] = [];
    let text = "";
    let finishReason: string | undefined;
    try {
      for await (const part of result.fullStream) {
        if (part.type === "error") errors.push(part.error);
        if (part.type === "text-delta") text += part.text;
        if (part.type === "finish") finishReason = part.finishReason;
      }
    } catch (error) {
      errors.push(error);
    }
    expect(text).toBe('You said: ');
    expect(errors.length).toBeGreaterThan(0);
    expect(String((errors[0] as Error).cause ?? errors[0])).toMatch(/terminated|closed|socket/i);
    expect(finishReason).not.toBe("stop");
    const recorded = mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    expect(recorded.completed).toBe(false);
    expect(recorded.aborted).toBe(false);
  });
});

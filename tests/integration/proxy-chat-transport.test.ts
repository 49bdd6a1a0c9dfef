/**
 * The chat transport's request shapes (images left out for a text-only model, Continue) against the
 * real handler over HTTP and the mock upstream, whose strict /responses checks decide what passes.
 */
import type { UIMessage, UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gradientPng } from "@/mock-upstream/images-png";
import { BASE, signIn, startHarness, type Harness, type TestClient } from "./harness";
import { decodeChatError } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import { acceptsImages } from "@/lib/client/model-capabilities";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { CONTINUE_INSTRUCTION } from "@/lib/client/request-messages";

function cookieFetch(client: TestClient): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (client.cookie !== undefined) headers.set("cookie", `lwc_session=${client.cookie}`);
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [name, ...rest] = line.split(";")[0]!.split("=");
      if (name!.trim() === "lwc_session") client.cookie = decodeURIComponent(rest.join("="));
    }
    return response;
  };
}

async function readChunks(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

const textOf = (chunks: UIMessageChunk[]) => chunks.map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");
const errorOf = (chunks: UIMessageChunk[]) => {
  const chunk = chunks.find((candidate) => candidate.type === "error");
  return chunk?.type === "error" ? decodeChatError(new Error(chunk.errorText)) : undefined;
};

/** A message's text in the request: a string, or its parts' texts. */
const contentText = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? "").join("") : "";

const png = `data:image/png;base64,${gradientPng(32, 24).toString("base64")}`;
const withImage: UIMessage[] = [
  { id: "u1", role: "user", parts: [{ type: "file", mediaType: "image/png", url: png, filename: "chart.png" }, { type: "text", text: "what is this?" }] },
  { id: "a1", role: "assistant", parts: [{ type: "text", text: "a chart" }] },
  { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
];

describe("chat transport request shapes", () => {
  let harness: Harness;
  let transport: ProxyChatTransport;
  let textOnlyModel: string;

  beforeAll(async () => {
    harness = await startHarness({ handler: { responsesProxy: { rateLimit: { limit: 1000, windowMs: 60_000 } } } });
    const client = harness.client();
    await signIn(harness, client);
    const provider = createProviderProxy({ basePath: `${harness.served.url}${BASE}/`, fetch: cookieFetch(client) });
    transport = new ProxyChatTransport({ provider });
    // Picked by what the catalog says, not by name.
    const textOnly = (await provider.listModelDetails()).find((model) => !acceptsImages(model));
    if (!textOnly) throw new Error("the mock's catalog has no text-only model to test with");
    textOnlyModel = textOnly.slug;
  });
  afterAll(async () => {
    await harness.close();
  });

  const send = async (messages: UIMessage[], options: ReturnType<typeof chatRequestOptions>) =>
    readChunks(await transport.sendMessages({ trigger: "submit-message", chatId: "c", messageId: undefined, messages, abortSignal: undefined, ...options }));

  it("the backend refuses earlier images for a text-only model, and says so in words that offer no retry", async () => {
    const chunks = await send(withImage, chatRequestOptions({ model: textOnlyModel, reasoningEffort: "medium", fast: false }));
    expect(errorOf(chunks)).toMatchObject({ code: "images_not_supported" });
  });

  it("leaves the images out for a text-only model when asked, and the answer comes", async () => {
    const chunks = await send(withImage, chatRequestOptions({ model: textOnlyModel, reasoningEffort: "medium", fast: false, leaveOutImages: true }));
    expect(errorOf(chunks)?.message).toBeUndefined();
    expect(textOf(chunks)).toBe('You said: "and now?". Earlier you said: "what is this?".');
    const upstream = harness.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    expect(JSON.stringify(upstream.body)).not.toContain("input_image");
  });

  it("the answer names its model and when it started", async () => {
    const before = Date.now();
    const chunks = await send([{ id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] }], chatRequestOptions({ model: textOnlyModel, reasoningEffort: "medium", fast: false }));
    const start = chunks.find((chunk) => chunk.type === "start");
    expect(start?.type === "start" && start.messageMetadata).toEqual({ model: textOnlyModel, createdAt: expect.any(Number) });
    const createdAt = (start as { messageMetadata: { createdAt: number } }).messageMetadata.createdAt;
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
  });

  it("Continue sends the interrupted answer and asks the model to carry on from it", async () => {
    const messages: UIMessage[] = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "tell me a long story" }] },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "Once upon a ti" }] },
    ];
    const chunks = await send(messages, chatRequestOptions({ model: textOnlyModel, reasoningEffort: "medium", fast: false, continueAnswer: true }));
    expect(textOf(chunks)).toContain(CONTINUE_INSTRUCTION);
    const input = (harness.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body as { input: { role: string; content: unknown }[] }).input;
    expect(input.map((item) => item.role)).toEqual(["user", "assistant", "user"]);
    expect(contentText(input[1]!.content)).toBe("Once upon a ti");
    expect(contentText(input[2]!.content)).toBe(CONTINUE_INSTRUCTION);
  });

  it("webSearch sends the web_search tool as Codex does, and the answer's citations arrive as url sources with titles", async () => {
    const question: UIMessage[] = [{ id: "u1", role: "user", parts: [{ type: "text", text: "weather in Lisbon" }] }];
    const chunks = await send(question, chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false, webSearch: true }));
    const sent = harness.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body as { tools: unknown[]; include: string[] };
    expect(sent.tools).toEqual([{ type: "web_search", external_web_access: true }]);
    expect(sent.include).not.toContain("web_search_call.action.sources");
    expect(chunks.some((chunk) => chunk.type === "tool-output-available")).toBe(true);
    const sources = chunks.flatMap((chunk) => (chunk.type === "source-url" ? [{ url: chunk.url, title: chunk.title }] : []));
    expect(sources).toHaveLength(2);
    for (const source of sources) expect(source.title).toMatch(/weather in Lisbon – Example/);

    // Without the switch: no tool.
    await send(question, chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }));
    expect(harness.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!.body).not.toHaveProperty("tools");
  });
});

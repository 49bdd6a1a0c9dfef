/** The web_search tool: a search call streamed as the Responses API does, then an answer citing its sources. */
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import clientVersionFile from "@/lib/upstream/client-version.json";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { parseSse, postResponses, validBody } from "./test-utils";

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 1 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());

const question = { type: "message", role: "user", content: [{ type: "input_text", text: "weather in Lisbon" }] };
// The tool as the pinned Codex sends it for live search (docs/upstream.md).
const webSearch = { type: "web_search", external_web_access: true };

interface Citation {
  type: string;
  start_index: number;
  end_index: number;
  url: string;
  title: string;
}

async function searchEvents(overrides: Record<string, unknown> = {}) {
  const reply = await postResponses(mock, tokens, validBody({ input: [question], tools: [webSearch], ...overrides }));
  expect(reply.status).toBe(200);
  return parseSse(await reply.text());
}

describe("web search in the mock", () => {
  it("streams a web_search_call item with its in_progress, searching and completed events before the answer", async () => {
    const events = await searchEvents();
    const added = events.find((e) => e.event === "response.output_item.added" && (e.data.item as { type: string }).type === "web_search_call");
    expect(added).toBeDefined();
    const callId = (added!.data.item as { id: string }).id;
    expect(callId).toMatch(/^ws_/);
    const callEvents = events.filter((e) => e.event.startsWith("response.web_search_call.")).map((e) => e.event);
    expect(callEvents).toEqual(["response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed"]);
    for (const event of events.filter((e) => e.event.startsWith("response.web_search_call."))) {
      expect(event.data.item_id).toBe(callId);
      expect(event.data.output_index).toBe(added!.data.output_index);
    }
    const done = events.find((e) => e.event === "response.output_item.done" && (e.data.item as { type: string }).type === "web_search_call");
    expect(done!.data.item).toEqual({ id: callId, type: "web_search_call", status: "completed", action: { type: "search", query: "weather in Lisbon" } });
    const order = events.map((e) => e.event);
    expect(order.indexOf("response.web_search_call.completed")).toBeLessThan(order.indexOf("response.output_text.delta"));
  });

  it("answers with url_citation annotations whose indexes cover the cited text", async () => {
    const events = await searchEvents();
    const annotationEvents = events.filter((e) => e.event === "response.output_text.annotation.added");
    expect(annotationEvents.length).toBeGreaterThanOrEqual(2);
    const text = events.find((e) => e.event === "response.output_text.done")!.data.text as string;
    const citations = annotationEvents.map((e) => e.data.annotation as Citation);
    citations.forEach((citation, index) => {
      expect(annotationEvents[index]!.data.annotation_index).toBe(index);
      expect(citation.type).toBe("url_citation");
      expect(citation.url).toMatch(/^https:\/\//);
      expect(citation.title.length).toBeGreaterThan(0);
      // The cited span is the markdown link the answer carries, as the real answers do.
      expect(text.slice(citation.start_index, citation.end_index)).toContain(citation.url);
    });
    const finalMessage = events.find((e) => e.event === "response.output_item.done" && (e.data.item as { type: string }).type === "message");
    const part = (finalMessage!.data.item as { content: { annotations: Citation[] }[] }).content[0]!;
    expect(part.annotations).toEqual(citations);
  });

  it("lists the sources on the search action only when the request includes web_search_call.action.sources", async () => {
    const events = await searchEvents({ include: ["reasoning.encrypted_content", "web_search_call.action.sources"] });
    const done = events.find((e) => e.event === "response.output_item.done" && (e.data.item as { type: string }).type === "web_search_call");
    const action = (done!.data.item as { action: { sources: { type: string; url: string }[] } }).action;
    const citations = events.filter((e) => e.event === "response.output_text.annotation.added").map((e) => (e.data.annotation as Citation).url);
    expect(action.sources.map((source) => source.url)).toEqual(citations);
    expect(action.sources.every((source) => source.type === "url")).toBe(true);
  });

  it("runs no search without the tool", async () => {
    const reply = await postResponses(mock, tokens, validBody({ input: [question] }));
    const events = parseSse(await reply.text());
    expect(events.some((e) => e.event.startsWith("response.web_search_call."))).toBe(false);
    expect(events.some((e) => e.event === "response.output_text.annotation.added")).toBe(false);
  });

  it("is read by the AI SDK as a provider-executed web_search call and url sources with titles", async () => {
    const openai = createOpenAI({
      baseURL: mock.codexBaseUrl,
      apiKey: tokens.access_token,
      headers: { "ChatGPT-Account-ID": "acct_demo", originator: "codex_cli_rs", version: clientVersionFile.clientVersion },
    });
    const result = streamText({
      model: openai.responses("gpt-5.5"),
      prompt: "weather in Lisbon",
      tools: { web_search: openai.tools.webSearch({ externalWebAccess: true }) },
      providerOptions: { openai: { store: false, instructions: "You are a helpful assistant.", includeWebSearchSources: false } },
      maxRetries: 0,
    });
    const chunks: { type: string; [key: string]: unknown }[] = [];
    for await (const chunk of result.toUIMessageStream({ sendSources: true })) chunks.push(chunk);
    const toolInput = chunks.find((chunk) => chunk.type === "tool-input-available");
    expect(toolInput).toMatchObject({ toolName: "web_search", providerExecuted: true });
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")).toMatchObject({ output: { action: { type: "search", query: "weather in Lisbon" } } });
    const sources = chunks.filter((chunk) => chunk.type === "source-url");
    expect(sources.length).toBeGreaterThanOrEqual(2);
    for (const source of sources) {
      expect(source.url).toMatch(/^https:\/\//);
      expect(typeof source.title).toBe("string");
    }
  });
});

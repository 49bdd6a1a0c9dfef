/** What the mock's echo reply shows of the request: the instructions it got, and the JSON a schema asks for. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_INSTRUCTIONS } from "@/lib/upstream/responses";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { parseSse, postResponses, validBody } from "./test-utils";

let mock: MockUpstream;
let tokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  tokens = await signInThroughMock(mock);
});
afterAll(() => mock.close());

/** The assistant text of a streamed reply (from its output_text.done event). */
async function replyText(body: Record<string, unknown>): Promise<string> {
  const reply = await postResponses(mock, tokens, body);
  expect(reply.status).toBe(200);
  const done = parseSse(await reply.text()).find((event) => event.event === "response.output_text.done");
  return done!.data.text as string;
}

describe("the echo names the instructions it got", () => {
  it("says nothing of the default instructions the proxy sends", async () => {
    expect(await replyText(validBody({ instructions: DEFAULT_INSTRUCTIONS }))).toBe('You said: "hello there".');
  });

  it("quotes other instructions after the echo", async () => {
    expect(await replyText(validBody({ instructions: "Answer like a pirate." }))).toBe(
      'You said: "hello there". Instructions I got: "Answer like a pirate."',
    );
  });

  it("quotes only the start of long instructions, on one line", async () => {
    const long = `Line one of the rules.\n\n${"More rules. ".repeat(40)}`;
    const text = await replyText(validBody({ instructions: long }));
    const quoted = /Instructions I got: "(.*)"$/.exec(text)?.[1];
    expect(quoted).toBeDefined();
    expect(quoted!.startsWith("Line one of the rules. More rules.")).toBe(true);
    expect(quoted!.endsWith("…")).toBe(true);
    expect(quoted!.length).toBeLessThanOrEqual(81);
  });
});

describe("a request for a short title", () => {
  const conversation = (question: string) => [
    { type: "message", role: "user", content: [{ type: "input_text", text: question }] },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Start in Higashiyama." }] },
  ];
  const asked = "Write a short title for this conversation.";

  it("is answered with the first question's first words, as a title", async () => {
    expect(await replyText(validBody({ instructions: asked, input: conversation("plan a relaxed three day trip to Kyoto in April?") }))).toBe(
      "Plan a relaxed three day trip",
    );
    expect(await replyText(validBody({ instructions: asked, input: conversation("Kyoto temples?\nmore details") }))).toBe("Kyoto temples");
  });

  it("is read from a developer message too (instructions the server enforces come first)", async () => {
    const input = [{ type: "message", role: "developer", content: [{ type: "input_text", text: asked }] }, ...conversation("Sourdough at home")];
    expect(await replyText(validBody({ instructions: "Answer like a pirate.", input }))).toBe("Sourdough at home");
  });
});

describe("a json_schema text format", () => {
  it("gets JSON that fits the schema, strings carrying the echo", async () => {
    const schema = {
      type: "object",
      properties: {
        summary: { type: "string" },
        count: { type: "integer" },
        score: { type: "number" },
        ok: { type: "boolean" },
        mood: { type: "string", enum: ["calm", "busy"] },
        tags: { type: "array", items: { type: "string" } },
        nested: { type: "object", properties: { note: { type: ["string", "null"] } }, required: ["note"], additionalProperties: false },
      },
      required: ["summary", "count", "score", "ok", "mood", "tags", "nested"],
      additionalProperties: false,
    };
    const text = await replyText(validBody({ text: { format: { type: "json_schema", name: "reply", strict: true, schema } } }));
    expect(JSON.parse(text)).toEqual({
      summary: 'You said: "hello there".',
      count: 1,
      score: 1,
      ok: true,
      mood: "calm",
      tags: ['You said: "hello there".'],
      nested: { note: 'You said: "hello there".' },
    });
  });

  it("a json_object format gets an object with the echo", async () => {
    const text = await replyText(validBody({ text: { format: { type: "json_object" } } }));
    expect(JSON.parse(text)).toEqual({ reply: 'You said: "hello there".' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "./server";
import { signInThroughMock, type MockTokenSet } from "./sign-in";
import { imageSize } from "./images-in";
import { gradientPng } from "./images-png";
import { parseSse, postResponses, validBody } from "./test-utils";

let mock: MockUpstream;
let tokens: MockTokenSet;
let freeTokens: MockTokenSet;
beforeAll(async () => {
  mock = await startMockUpstream({ streamChunkDelayMs: 1 });
  tokens = await signInThroughMock(mock);
  freeTokens = await signInThroughMock(mock, { accountId: "acct_free", plan: "free", email: "free@example.com" });
});
afterAll(() => mock.close());

function without(name: string): Record<string, unknown> {
  const body = validBody();
  delete body[name];
  return body;
}

async function expectRejected(body: unknown, detail: string | RegExp, status = 400) {
  const reply = await postResponses(mock, tokens, body);
  expect(reply.status).toBe(status);
  const json = (await reply.json()) as { detail: string };
  if (typeof detail === "string") expect(json.detail).toBe(detail);
  else expect(json.detail).toMatch(detail);
}

function userMessage(text: string) {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

describe("strict request validation", () => {
  it("accepts a Codex-shaped body", async () => {
    const reply = await postResponses(mock, tokens, validBody());
    expect(reply.status).toBe(200);
    await reply.text();
  });

  it("requires store: false", async () => {
    await expectRejected(validBody({ store: true }), "Store must be set to false");
    await expectRejected(without("store"), "Store must be set to false");
  });

  it("requires stream: true", async () => {
    await expectRejected(validBody({ stream: false }), "Stream must be set to true");
    await expectRejected(without("stream"), "Stream must be set to true");
  });

  it("requires string instructions", async () => {
    await expectRejected(without("instructions"), "Instructions are required");
    await expectRejected(validBody({ instructions: ["x"] }), "Instructions are required");
  });

  it.each(["max_output_tokens", "max_tokens", "max_completion_tokens", "temperature", "top_p", "frequency_penalty", "presence_penalty", "previous_response_id"])(
    "rejects the unsupported parameter %s",
    async (name) => {
      await expectRejected(validBody({ [name]: name === "previous_response_id" ? "resp_1" : 1 }), `Unsupported parameter: ${name}`);
    },
  );

  it("rejects input items that carry an id, and item references", async () => {
    await expectRejected(validBody({ input: [{ ...userMessage("hi"), id: "msg_1" }] }), /Item with id 'msg_1' not found/);
    await expectRejected(
      validBody({ input: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAA" }, userMessage("hi")] }),
      /Item with id 'rs_1' not found/,
    );
    await expectRejected(validBody({ input: [{ type: "item_reference", id: "msg_2" }, userMessage("hi")] }), /Item with id 'msg_2' not found/);
  });

  it("accepts reasoning items without id (encrypted content carried over)", async () => {
    const reply = await postResponses(
      mock,
      tokens,
      validBody({ input: [userMessage("a"), { type: "reasoning", summary: [], encrypted_content: "gAAAAB" }, { role: "assistant", content: "b" }, userMessage("c")] }),
    );
    expect(reply.status).toBe(200);
    await reply.text();
  });

  it("rejects system messages and a non-list input", async () => {
    await expectRejected(validBody({ input: [{ role: "system", content: "be nice" }, userMessage("hi")] }), "System messages are not allowed");
    await expectRejected(validBody({ input: "hello" }), "Input must be a list");
  });

  it("rejects unknown models and models hidden for the plan", async () => {
    await expectRejected(
      validBody({ model: "gpt-4o" }),
      "The 'gpt-4o' model is not supported when using Codex with a ChatGPT account.",
    );
    const reply = await postResponses(mock, freeTokens, validBody({ model: "gpt-5.5" }), "acct_free");
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ detail: "The 'gpt-5.5' model is not supported when using Codex with a ChatGPT account." });
    const mini = await postResponses(mock, freeTokens, validBody({ model: "gpt-5.4-mini" }), "acct_free");
    expect(mini.status).toBe(200);
    await mini.text();
  });

  it("accepts hidden models of the plan (visibility is only about pickers)", async () => {
    const reply = await postResponses(mock, tokens, validBody({ model: "codex-auto-review", reasoning: { effort: "low" } }));
    expect(reply.status).toBe(200);
    await reply.text();
  });

  it("rejects a service_tier the model does not offer, accepts one it does", async () => {
    await expectRejected(validBody({ model: "gpt-5.4-mini", service_tier: "priority" }), /Unsupported service_tier/);
    await expectRejected(validBody({ model: "gpt-6.1-sol", service_tier: "flex" }), /Unsupported service_tier/);
    await expectRejected(validBody({ service_tier: "fast" }), /Unsupported service_tier/);
    const reply = await postResponses(mock, tokens, validBody({ service_tier: "priority" }));
    expect(reply.status).toBe(200);
    const completed = parseSse(await reply.text()).at(-1)!;
    expect((completed.data.response as { service_tier: string }).service_tier).toBe("priority");
  });

  it("rejects a reasoning effort the model does not support", async () => {
    await expectRejected(validBody({ model: "gpt-5.4-mini", reasoning: { effort: "xhigh" } }), /'reasoning.effort' does not support 'xhigh'/);
    await expectRejected(validBody({ reasoning: { effort: "extreme" } }), /does not support 'extreme'/);
    await expectRejected(validBody({ reasoning: { effort: "low", summary: "verbose" } }), /Invalid value: 'verbose'/);
  });

  it("rejects a body that is not a JSON object", async () => {
    const reply = await fetch(`${mock.codexBaseUrl}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}`, "chatgpt-account-id": "acct_demo", "content-type": "application/json" },
      body: "{not json",
    });
    expect(reply.status).toBe(400);
  });

  it("requires authentication before anything else", async () => {
    const reply = await fetch(`${mock.codexBaseUrl}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(validBody()),
    });
    expect(reply.status).toBe(401);
    expect(reply.headers.get("content-type")).toContain("application/json");
  });
});

describe("the SSE stream", () => {
  it("emits the full sequence in order with growing sequence numbers", async () => {
    const reply = await postResponses(mock, tokens, validBody());
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = parseSse(await reply.text());
    events.forEach((event, index) => {
      expect(event.data.type).toBe(event.event);
      expect(event.data.sequence_number).toBe(index);
    });
    const types = events.map((e) => e.event);
    const summaryDeltas = types.filter((t) => t === "response.reasoning_summary_text.delta").length;
    const textDeltas = types.filter((t) => t === "response.output_text.delta").length;
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      ...Array<string>(summaryDeltas).fill("response.reasoning_summary_text.delta"),
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      ...Array<string>(textDeltas).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(summaryDeltas).toBeGreaterThan(1);
    expect(textDeltas).toBeGreaterThan(1);
  });

  it("has complete shapes: response envelope, reasoning item, message item, usage", async () => {
    const events = parseSse(await (await postResponses(mock, tokens, validBody())).text());
    const created = events[0]!.data.response as Record<string, unknown>;
    expect(created).toMatchObject({ object: "response", status: "in_progress", model: "gpt-5.5", output: [] });
    expect(created.id).toMatch(/^resp_/);
    expect(typeof created.created_at).toBe("number");

    const reasoningAdded = events[2]!.data;
    expect(reasoningAdded).toMatchObject({ output_index: 0, item: { type: "reasoning", summary: [] } });
    const reasoningId = (reasoningAdded.item as { id: string }).id;
    expect(reasoningId).toMatch(/^rs_/);
    const summaryText = events
      .filter((e) => e.event === "response.reasoning_summary_text.delta")
      .map((e) => {
        expect(e.data).toMatchObject({ item_id: reasoningId, output_index: 0, summary_index: 0 });
        return e.data.delta as string;
      })
      .join("");
    expect(summaryText).toBe("Thinking about: hello there");
    const reasoningDone = events.find((e) => e.event === "response.output_item.done")!.data;
    expect(reasoningDone).toMatchObject({
      output_index: 0,
      item: { id: reasoningId, type: "reasoning", summary: [{ type: "summary_text", text: summaryText }] },
    });
    expect((reasoningDone.item as { encrypted_content: string }).encrypted_content).toMatch(/^gAAAAA/);

    const messageAdded = events.filter((e) => e.event === "response.output_item.added")[1]!.data;
    expect(messageAdded).toMatchObject({ output_index: 1, item: { type: "message", role: "assistant", status: "in_progress", content: [] } });
    const messageId = (messageAdded.item as { id: string }).id;
    expect(messageId).toMatch(/^msg_/);
    const deltas = events.filter((e) => e.event === "response.output_text.delta");
    for (const delta of deltas) {
      expect(delta.data).toMatchObject({ item_id: messageId, output_index: 1, content_index: 0, logprobs: [] });
      expect((delta.data.delta as string).trim().split(/\s+/)).toHaveLength(1);
    }
    const text = deltas.map((d) => d.data.delta).join("");
    expect(text).toBe('You said: "hello there".');
    expect(events.find((e) => e.event === "response.output_text.done")!.data).toMatchObject({ item_id: messageId, text });
    const messageDone = events.filter((e) => e.event === "response.output_item.done")[1]!.data;
    expect(messageDone).toMatchObject({
      output_index: 1,
      item: { id: messageId, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] },
    });

    const completed = events.at(-1)!.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({ id: created.id, status: "completed", model: "gpt-5.5" });
    expect((completed.output as unknown[]).length).toBe(2);
    const usage = completed.usage as Record<string, number & Record<string, number>>;
    // input: ceil((28 instruction chars + 11 input chars) / 4) = 10; output: 4 reply words + 4 summary words x 4.
    expect(usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4 + 16,
      output_tokens_details: { reasoning_tokens: 16 },
      total_tokens: 30,
    });
  });

  it("omits encrypted_content when it was not included", async () => {
    const events = parseSse(await (await postResponses(mock, tokens, validBody({ include: [] }))).text());
    const reasoningDone = events.find((e) => e.event === "response.output_item.done")!.data.item as Record<string, unknown>;
    expect(reasoningDone.type).toBe("reasoning");
    expect(reasoningDone).not.toHaveProperty("encrypted_content");
  });

  it("skips summary parts for summary none, and the reasoning item for effort none", async () => {
    const noSummary = parseSse(await (await postResponses(mock, tokens, validBody({ reasoning: { effort: "low", summary: "none" } }))).text());
    expect(noSummary.map((e) => e.event)).not.toContain("response.reasoning_summary_part.added");
    expect(noSummary[2]!.data.item).toMatchObject({ type: "reasoning" });
    const noReasoning = parseSse(await (await postResponses(mock, tokens, validBody({ model: "gpt-5.4-mini", reasoning: { effort: "none" } }))).text());
    expect(noReasoning[2]!.data.item).toMatchObject({ type: "message" });
    const usage = (noReasoning.at(-1)!.data.response as { usage: { output_tokens_details: { reasoning_tokens: number } } }).usage;
    expect(usage.output_tokens_details.reasoning_tokens).toBe(0);
  });

  it("derives the reply from the first and last user messages (string or parts), markers removed", async () => {
    const body = validBody({
      input: [
        { role: "developer", content: "context" },
        { role: "user", content: "My name is Ada" },
        { role: "assistant", content: "Hi Ada" },
        userMessage("What is my name? [[mock:unknown_marker]]"),
      ],
    });
    const events = parseSse(await (await postResponses(mock, tokens, body)).text());
    const text = events.find((e) => e.event === "response.output_text.done")!.data.text;
    expect(text).toBe('You said: "What is my name?". Earlier you said: "My name is Ada".');
    const marked = validBody({ input: [userMessage("hi [[mock:nothing]] there")] });
    const reply = await postResponses(mock, tokens, marked);
    const markedText = parseSse(await reply.text()).find((e) => e.event === "response.output_text.done")!.data.text;
    expect(markedText).toBe('You said: "hi there".');
  });

  it("acts on a marker only in the last user message, so one earlier in the history fires once", async () => {
    const earlier = validBody({
      input: [userMessage("boom [[mock:server_error]]"), { role: "assistant", content: "..." }, userMessage("and now?")],
    });
    const reply = await postResponses(mock, tokens, earlier);
    expect(reply.status).toBe(200);
    await reply.text();
    const latest = validBody({ input: [userMessage("fine"), userMessage("boom [[mock:server_error]]")] });
    expect((await postResponses(mock, tokens, latest)).status).toBe(500);
  });

  it("takes an inline image, and the reply names what it received", async () => {
    const png = gradientPng(64, 48).toString("base64");
    const body = validBody({
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "what is this?" }, { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" }] }],
    });
    const events = parseSse(await (await postResponses(mock, tokens, body)).text());
    const text = events.find((e) => e.event === "response.output_text.done")!.data.text;
    expect(text).toMatch(/^You said: "what is this\?"\. You sent 1 image \(image\/png, 64×48, \d+ KB\)\.$/);
  });

  it("reads the pixel size of a PNG and of a baseline JPEG", () => {
    expect(imageSize(gradientPng(300, 200))).toEqual({ width: 300, height: 200 });
    // SOI, an APP0 segment, then SOF0 with height 480 and width 640.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0x00, 0x00]);
    expect(imageSize(jpeg)).toEqual({ width: 640, height: 480 });
    expect(imageSize(Buffer.from("not an image"))).toBeUndefined();
  });

  it("refuses images the backend would refuse", async () => {
    const image = (image_url: unknown) => ({ type: "message", role: "user", content: [{ type: "input_image", image_url }] });
    await expectRejected(validBody({ input: [image("data:text/plain;base64,aGVsbG8=")] }), /Invalid image type 'text\/plain'/);
    await expectRejected(validBody({ input: [image("not a data url")] }), /Expected a base64-encoded data URL/);
    await expectRejected(validBody({ input: [image(42)] }), /Missing required parameter/);
    await expectRejected(validBody({ model: "gpt-5.4-mini", reasoning: { effort: "low", summary: "auto" }, input: [image("data:image/png;base64,AAAA")] }), "The 'gpt-5.4-mini' model does not support image inputs.");
  });

  it("caps the summary source at 60 characters", async () => {
    const long = "x".repeat(100);
    const events = parseSse(await (await postResponses(mock, tokens, validBody({ input: [userMessage(long)] }))).text());
    const summary = events.find((e) => e.event === "response.reasoning_summary_text.done")!.data.text;
    expect(summary).toBe(`Thinking about: ${"x".repeat(60)}`);
  });

  it("sends the usage headers", async () => {
    const reply = await postResponses(mock, tokens, validBody());
    await reply.text();
    for (const name of [
      "x-codex-primary-used-percent",
      "x-codex-primary-window-minutes",
      "x-codex-primary-reset-at",
      "x-codex-secondary-used-percent",
      "x-codex-secondary-window-minutes",
      "x-codex-secondary-reset-at",
    ]) {
      expect(reply.headers.get(name), name).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(Number(reply.headers.get("x-codex-primary-reset-at"))).toBeGreaterThan(Date.now() / 1000);
    expect(reply.headers.get("x-codex-primary-window-minutes")).toBe("300");
  });

  it("spaces text deltas streamChunkDelayMs apart", async () => {
    mock.setOptions({ streamChunkDelayMs: 40 });
    try {
      const started = Date.now();
      const events = parseSse(await (await postResponses(mock, tokens, validBody({ model: "gpt-5.4-mini", reasoning: { effort: "none" } }))).text());
      const deltas = events.filter((e) => e.event === "response.output_text.delta").length;
      expect(Date.now() - started).toBeGreaterThanOrEqual(deltas * 40 - 5);
    } finally {
      mock.setOptions({ streamChunkDelayMs: 1 });
    }
  });
});

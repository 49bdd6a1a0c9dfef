import { describe, expect, it } from "vitest";
import { DEFAULT_INSTRUCTIONS } from "./responses";
import { prepareSiwcResponsesBody, SIWC_REFUSED_FIELDS } from "./siwc-responses";

const minimal = () => ({ model: "gpt-6.1-sol", input: [] as unknown[] });

function prepared(body: Record<string, unknown> & { model: string }, options?: Parameters<typeof prepareSiwcResponsesBody>[1]) {
  const result = prepareSiwcResponsesBody(body, options);
  if (!result.ok) throw new Error(`refused: ${result.refusal.param}`);
  return result.body;
}

describe("prepareSiwcResponsesBody", () => {
  it("forces store:false and stream:true", () => {
    const out = prepared({ ...minimal(), store: true, stream: false });
    expect(out).toMatchObject({ store: false, stream: true });
  });

  it("turns a string input into one user message", () => {
    expect(prepared({ model: "m", input: "hi there" }).input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi there" }] },
    ]);
  });

  it("turns system items into developer ones and drops stored-item ids and references", () => {
    const input = [
      { type: "message", role: "system", content: "rules" },
      { role: "system", content: "more rules" },
      { type: "reasoning", id: "rs_1", encrypted_content: "x" },
      { type: "item_reference", id: "msg_1" },
      { role: "user", content: "q" },
    ];
    const body = { model: "m", input };
    expect(prepared(body).input).toEqual([
      { type: "message", role: "developer", content: "rules" },
      { role: "developer", content: "more rules" },
      { type: "reasoning", encrypted_content: "x" },
      { role: "user", content: "q" },
    ]);
    // The caller's body is untouched.
    expect(body.input[0]).toEqual({ type: "message", role: "system", content: "rules" });
  });

  it.each(SIWC_REFUSED_FIELDS.map((field) => [field]))("refuses %s, naming it", (field) => {
    const result = prepareSiwcResponsesBody({ ...minimal(), [field]: field === "metadata" ? {} : 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.refusal.code).toBe("unsupported_field");
      expect(result.refusal.param).toBe(field);
      expect(result.refusal.message).toContain(field);
    }
  });

  it("leaves out a refused field that is null (it asks for nothing)", () => {
    const out = prepared({ ...minimal(), max_output_tokens: null, temperature: null });
    expect(out).not.toHaveProperty("max_output_tokens");
    expect(out).not.toHaveProperty("temperature");
  });

  it("refuses image generation as a feature not available (not a field to fix), before any refused field", () => {
    const result = prepareSiwcResponsesBody({ ...minimal(), temperature: 1, tools: [{ type: "web_search" }, { type: "image_generation" }] });
    expect(result).toEqual({
      ok: false,
      refusal: { code: "not_available_with_siwc", param: "tools[1]", message: expect.stringMatching(/Image generation is not available/) },
    });
  });

  it.each([
    [{ type: "function", name: "f", parameters: {} }, /namespace/],
    [{ type: "custom", name: "c" }, /namespace/],
    [{ type: "file_search" }, /"file_search"/],
    [{ type: "code_interpreter" }, /"code_interpreter"/],
    [{ type: "mcp" }, /"mcp"/],
    [{ type: "programmatic_tool_calling" }, /not available/],
    ["not a tool", /not available/],
  ])("refuses the tool %j as tools[1]", (tool, message) => {
    const result = prepareSiwcResponsesBody({ ...minimal(), tools: [{ type: "web_search" }, tool] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.refusal.code).toBe("unsupported_field");
      expect(result.refusal.param).toBe("tools[1]");
      expect(result.refusal.message).toMatch(message);
    }
  });

  it("passes namespace groups and web search", () => {
    const tools = [{ type: "namespace", name: "app", tools: [{ type: "function", name: "f" }] }, { type: "web_search" }];
    expect(prepared({ ...minimal(), tools }).tools).toEqual(tools);
  });

  it("applies the server's instructions like the device route", () => {
    expect(prepared(minimal()).instructions).toBe(DEFAULT_INSTRUCTIONS);
    expect(prepared({ ...minimal(), instructions: "Be brief." }).instructions).toBe("Be brief.");
    const enforced = prepared({ ...minimal(), instructions: "Be brief." }, { instructions: "Server rules.", instructionsMode: "enforce" });
    expect(enforced.instructions).toBe("Server rules.");
    expect(enforced.input).toEqual([{ type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] }]);
  });

  it("applies the tier and effort headers", () => {
    const out = prepared({ ...minimal(), service_tier: "auto" }, { serviceTier: "fast", reasoningEffort: "high" });
    expect(out).toMatchObject({ service_tier: "priority", reasoning: { effort: "high", summary: "auto" } });
    expect(prepared({ ...minimal(), service_tier: "default" })).not.toHaveProperty("service_tier");
  });
});

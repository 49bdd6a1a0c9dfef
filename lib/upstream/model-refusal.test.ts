import { describe, expect, it } from "vitest";
import { classifyModelRefusal } from "./model-refusal";

const newer = "The 'gpt-7-sol' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again.";
const retired = "The 'gpt-5.3-codex' model is not supported when using Codex with a ChatGPT account.";

describe("classifyModelRefusal", () => {
  it("reads the backend's words from detail or error.message", () => {
    expect(classifyModelRefusal(400, JSON.stringify({ detail: newer }))).toEqual({ code: "client_version_outdated", model: "gpt-7-sol" });
    expect(classifyModelRefusal(400, JSON.stringify({ error: { type: "invalid_request_error", message: retired } }))).toEqual({
      code: "model_not_supported",
      model: "gpt-5.3-codex",
    });
  });

  it("ignores other statuses, other texts, and a model name that is not a slug", () => {
    expect(classifyModelRefusal(404, JSON.stringify({ detail: newer }))).toBeUndefined();
    expect(classifyModelRefusal(400, JSON.stringify({ detail: "Unsupported parameter: temperature" }))).toBeUndefined();
    expect(classifyModelRefusal(400, newer)).toBeUndefined();
    expect(classifyModelRefusal(400, JSON.stringify({ detail: "The 'a b<script>' model requires a newer version of Codex." }))).toBeUndefined();
    expect(classifyModelRefusal(400, "null")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { parseSiwcModels } from "./siwc-models";

describe("parseSiwcModels", () => {
  it("keeps listed models in the server's order, dropping only supported_in_api: false", () => {
    const reply = {
      models: [
        { slug: "b", display_name: "B", visibility: "list", priority: 9 },
        { slug: "hidden", visibility: "hide" },
        { slug: "a", visibility: "list", priority: 1, supported_in_api: true },
        { slug: "not-api", visibility: "list", supported_in_api: false },
        { slug: "c", visibility: "hidden" },
        { slug: "d", visibility: "list", supported_in_api: null },
      ],
    };
    const models = parseSiwcModels(JSON.stringify(reply));
    expect(models?.map((model) => model.slug)).toEqual(["b", "a", "d"]);
    expect(models?.[1]?.display_name).toBe("a");
  });

  it("is undefined for another shape (the API-key {data: [...]} list, or not JSON)", () => {
    expect(parseSiwcModels(JSON.stringify({ data: [{ id: "x" }] }))).toBeUndefined();
    expect(parseSiwcModels("<html>")).toBeUndefined();
  });
});

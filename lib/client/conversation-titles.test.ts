import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import { canBeTitled, cleanTitle, titleMessages, titleModel } from "./conversation-titles";
import type { ModelDetails } from "./provider-proxy";

const model = (slug: string, extra: Partial<ModelDetails> = {}): ModelDetails => ({
  slug,
  displayName: slug.toUpperCase(),
  reasoningEfforts: ["low", "medium"],
  serviceTiers: [],
  inputModalities: ["text"],
  ...extra,
});
const user = (id: string, text: string, metadata?: ChatUIMessage["metadata"]): ChatUIMessage => ({ id, role: "user", parts: [{ type: "text", text }], metadata });
const answer = (id: string, text: string, metadata?: ChatUIMessage["metadata"]): ChatUIMessage => ({ id, role: "assistant", parts: [{ type: "text", text }], metadata });

describe("titleModel", () => {
  it("picks the account's small model when one says so in its name, else the last usable one", () => {
    expect(titleModel([model("gpt-6.1-sol"), model("gpt-5.5"), model("gpt-5.4-mini")])?.slug).toBe("gpt-5.4-mini");
    expect(titleModel([model("gpt-6-nano"), model("gpt-6.1-sol"), model("gpt-5.5")])?.slug).toBe("gpt-6-nano");
    expect(titleModel([model("gpt-6.1-sol"), model("gpt-6-luna")])?.slug).toBe("gpt-6-luna");
    // A model this server cannot use yet is never asked; "minimal" in a name is no size.
    const unusable = { reason: "client_version_outdated" as const, minimalClientVersion: "9.0.0", message: "" };
    expect(titleModel([model("gpt-6.1-sol"), model("gpt-7-mini", { unavailable: unusable })])?.slug).toBe("gpt-6.1-sol");
    expect(titleModel([model("gpt-minimalist"), model("gpt-6.1-sol")])?.slug).toBe("gpt-6.1-sol");
    expect(titleModel([])).toBeUndefined();
  });
});

describe("titleMessages", () => {
  it("sends the conversation's text from the start, failed turns left out, each message and the whole bounded", () => {
    const long = "word ".repeat(600);
    const sent = titleMessages([
      user("u1", "  Plan a trip\n\nto Kyoto  "),
      answer("a1", "Start in Higashiyama."),
      user("u2", "never answered", { failure: { code: "network_error", message: "" } }),
      user("u3", long),
      answer("a3", long),
      user("u4", long),
      answer("a4", long),
      user("u5", long),
    ]);
    expect(sent.slice(0, 2)).toEqual([
      { role: "user", content: "Plan a trip to Kyoto" },
      { role: "assistant", content: "Start in Higashiyama." },
    ]);
    // The budget ends within the fourth answer; the last question is not sent.
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(sent[2]!.content.length).toBeLessThanOrEqual(1_001);
    expect(sent.reduce((total, message) => total + message.content.length, 0)).toBeLessThanOrEqual(4_005);
  });

  it("needs a question with words in it", () => {
    expect(canBeTitled([user("u1", "Plan a trip"), answer("a1", "Sure")])).toBe(true);
    expect(canBeTitled([{ id: "u1", role: "user", parts: [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AA==" }] }, answer("a1", "A cat.")])).toBe(false);
    expect(canBeTitled([user("u1", "fails", { failure: { code: "network_error", message: "" } })])).toBe(false);
  });
});

describe("cleanTitle", () => {
  it("keeps the title, whatever a model wraps it in", () => {
    expect(cleanTitle("Kyoto temple itinerary")).toBe("Kyoto temple itinerary");
    expect(cleanTitle('"Kyoto temple itinerary."')).toBe("Kyoto temple itinerary");
    expect(cleanTitle("Title: “Kyoto in April”")).toBe("Kyoto in April");
    expect(cleanTitle("**Title:** Kyoto in April\n\nThis conversation is about…")).toBe("Kyoto in April");
    expect(cleanTitle("# Sourdough   hydration")).toBe("Sourdough hydration");
    expect(cleanTitle("What time is it in Tokyo?")).toBe("What time is it in Tokyo?");
    expect(cleanTitle("  \n  ")).toBeNull();
    expect(cleanTitle('""')).toBeNull();
  });

  it("cuts a runaway answer at a word", () => {
    const title = cleanTitle("plan ".repeat(40));
    expect(title!.length).toBeLessThanOrEqual(81);
    expect(title!.endsWith("plan…")).toBe(true);
  });
});

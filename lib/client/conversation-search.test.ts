import { describe, expect, it } from "vitest";
import { ConversationSearchIndex, markTerms, recentHits, snippetAround, type SearchableConversation, type TextSegment } from "./conversation-search";

function conversation(id: string, title: string, texts: string[], updatedAt = 1): SearchableConversation {
  return {
    id,
    title,
    updatedAt,
    messages: texts.map((text, index) => ({ id: `${id}-m${index}`, role: index % 2 === 0 ? "user" : "assistant", parts: [{ type: "text", text }] })),
  };
}

const marked = (segments: TextSegment[]) => segments.filter((segment) => segment.match).map((segment) => segment.text);
const plain = (segments: TextSegment[]) => segments.map((segment) => segment.text).join("");

describe("ConversationSearchIndex", () => {
  const trip = conversation("trip", "Weekend in Lisbon", [
    "Where should we eat?",
    "Try the bakeries in Belém.",
    "How steep is the walk up through Alfama to the castle?",
    "Quite steep; take tram 28 if you are tired.",
  ]);
  const bread = conversation("bread", "Sourdough starter", ["How wet should the dough be?", "Aim for a hydration of about 70 percent."]);

  it("finds message text in any conversation and names the message that holds it, with a marked snippet", async () => {
    const index = new ConversationSearchIndex();
    await index.sync([trip, bread]);
    const [hit, ...rest] = index.search("alfama");
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({ conversationId: "trip", messageId: "trip-m2" });
    expect(plain(hit!.snippet)).toBe("How steep is the walk up through Alfama to the castle?");
    expect(marked(hit!.snippet)).toEqual(["Alfama"]);
    expect(index.search("hydration")[0]).toMatchObject({ conversationId: "bread", messageId: "bread-m1" });
  });

  it("needs every word of the query, in the same conversation, and picks the message holding most of them", async () => {
    const index = new ConversationSearchIndex();
    await index.sync([trip, bread]);
    expect(index.search("steep tired")[0]?.messageId).toBe("trip-m3");
    expect(index.search("hydration castle")).toEqual([]);
  });

  it("matches titles (a title-only hit opens no particular message), the word being typed as a prefix, accents and a typo", async () => {
    const index = new ConversationSearchIndex();
    await index.sync([trip, bread]);
    const [titleHit] = index.search("weekend");
    expect(titleHit).toMatchObject({ conversationId: "trip", messageId: null });
    expect(marked(titleHit!.title)).toEqual(["Weekend"]);
    expect(plain(titleHit!.snippet)).toBe("Where should we eat?");
    expect(index.search("hydra")[0]?.conversationId).toBe("bread");
    expect(index.search("belem")[0]?.messageId).toBe("trip-m1");
    expect(index.search("sourdogh")[0]?.conversationId).toBe("bread");
    expect(index.search("   ")).toEqual([]);
  });

  it("matches the word being typed from its first letters: in titles always, in messages once few words start so", async () => {
    const kyoto = conversation("kyoto", "Trip to Kyoto", ["Which temples first?", "Start in Higashiyama."]);
    const index = new ConversationSearchIndex();
    await index.sync([trip, bread, kyoto]);
    expect(index.search("kyo").map((hit) => hit.conversationId)).toEqual(["kyoto"]);
    expect(index.search("k").map((hit) => hit.conversationId)).toEqual(["kyoto"]);
    expect(index.search("trip ky").map((hit) => hit.conversationId)).toEqual(["kyoto"]);
    // In messages: "hig" starts one word of all the text, so it counts as a prefix there too.
    expect(index.search("hig")[0]).toMatchObject({ conversationId: "kyoto", messageId: "kyoto-m1" });
    expect(index.search("hyd")[0]).toMatchObject({ conversationId: "bread", messageId: "bread-m1" });
  });

  it("in messages, a short prefix that starts many words counts only as the whole word", async () => {
    const many = conversation("many", "Words", [Array.from({ length: 40 }, (_, index) => `ta${String.fromCharCode(97 + (index % 26))}${index}`).join(" ")]);
    const index = new ConversationSearchIndex();
    await index.sync([many]);
    expect(index.search("ta")).toEqual([]);
    expect(index.search("taa0").map((hit) => hit.conversationId)).toEqual(["many"]);
  });

  it("lists the most recent conversations, newest first, before anything is typed", () => {
    const older = conversation("older", "Older", ["old question"], 10);
    const newer = conversation("newer", "Newer", ["new question"], 20);
    const recent = recentHits([older, newer], 1);
    expect(recent).toHaveLength(1);
    expect(recent[0]).toMatchObject({ conversationId: "newer", messageId: null, updatedAt: 20 });
    expect(plain(recent[0]!.title)).toBe("Newer");
    expect(plain(recent[0]!.snippet)).toBe("new question");
    expect(recentHits([older, newer]).map((hit) => hit.conversationId)).toEqual(["newer", "older"]);
  });

  it("follows the store: re-indexes a changed conversation and forgets a removed one", async () => {
    const index = new ConversationSearchIndex();
    await index.sync([trip, bread]);
    const changed = conversation("bread", "Sourdough starter", ["Rye flour makes it sour."], 2);
    await index.sync([trip, changed]);
    expect(index.search("hydration")).toEqual([]);
    expect(index.search("rye")[0]?.conversationId).toBe("bread");
    await index.sync([changed]);
    expect(index.size).toBe(1);
    expect(index.search("alfama")).toEqual([]);
  });

  it("indexes a large history in chunks, reporting progress, and runs one sync at a time", async () => {
    const index = new ConversationSearchIndex();
    const many = Array.from({ length: 60 }, (_, i) => conversation(`c${i}`, `Chat ${i}`, [`note number${i}`]));
    const progress: [number, number][] = [];
    const first = index.sync(many, (done, total) => progress.push([done, total]));
    // Started while the first is still indexing: it must neither add a conversation twice nor lose one.
    const second = index.sync([...many.slice(0, 30), conversation("late", "Late", ["tardy"])]);
    await Promise.all([first, second]);
    expect(progress).toEqual([[25, 60], [50, 60], [60, 60]]);
    expect(index.size).toBe(31);
    expect(index.search("number59").map((hit) => hit.conversationId)).not.toContain("c59");
    expect(index.search("number12")[0]?.conversationId).toBe("c12");
    expect(index.search("tardy")[0]?.conversationId).toBe("late");
  });

  it("ranks better matches first and stops at the limit", async () => {
    const index = new ConversationSearchIndex();
    const many = Array.from({ length: 30 }, (_, i) => conversation(`c${i}`, `Chat ${i}`, [i === 7 ? "kiwi kiwi kiwi" : `kiwi and ${"filler ".repeat(40)}`]));
    await index.sync(many);
    const hits = index.search("kiwi", 5);
    expect(hits).toHaveLength(5);
    expect(hits[0]?.conversationId).toBe("c7");
  });
});

describe("snippets", () => {
  it("shows the words around a match far into a long message, cut at word boundaries", async () => {
    const text = `${"early words here ".repeat(20)}the needle sits here ${"later words follow ".repeat(20)}`;
    const segments = snippetAround(text, text.indexOf("needle"), new Set(["needle"]));
    const shown = plain(segments);
    expect(shown.startsWith("…")).toBe(true);
    expect(shown.endsWith("…")).toBe(true);
    expect(shown).toContain("the needle sits here");
    expect(shown.length).toBeLessThanOrEqual(150);
    expect(marked(segments)).toEqual(["needle"]);
    // No word cut in half at either end.
    expect(shown).toMatch(/^…(early|words|here) /);
    expect(shown).toMatch(/ (later|words|follow)…$/);
  });

  it("folds line breaks into spaces and marks every occurrence, whatever its case", async () => {
    expect(marked(markTerms("Tram, tram! TRAM?", new Set(["tram"])))).toEqual(["Tram", "tram", "TRAM"]);
    expect(plain(snippetAround("one\n\ntwo   three", 0, new Set()))).toBe("one two three");
  });
});

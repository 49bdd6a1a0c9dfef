import { describe, expect, it } from "vitest";
import { backupFile, conversationFile } from "./conversation-export";
import { importSummary, parseImportFile, planImport } from "./conversation-import";
import type { Conversation } from "./conversation-store";

function conversation(id: string, text = "hello"): Conversation {
  return {
    id,
    accountId: "acct_a",
    title: text,
    titleEdited: false,
    pinned: false,
    archived: false,
    createdAt: 1,
    updatedAt: 2,
    messages: [
      { id: `${id}-u`, role: "user", parts: [{ type: "text", text }] },
      { id: `${id}-a`, role: "assistant", metadata: { model: "gpt-5.5", createdAt: 2 }, parts: [{ type: "text", text: "hi" }] },
    ],
  };
}

const now = new Date(0);
const json = (value: unknown) => JSON.stringify(value);

describe("parseImportFile", () => {
  it("reads back a backup and a single conversation exactly as exported", () => {
    const backup = backupFile([conversation("c1"), conversation("c2")], now);
    expect(parseImportFile(json(backup))).toEqual({ ok: true, conversations: backup.conversations });
    const single = conversationFile(conversation("c3"), now);
    expect(parseImportFile(json(single))).toEqual({ ok: true, conversations: [single.conversation] });
  });

  it("keeps a conversation's pin and archive, and reads a file from before them as neither", () => {
    const organised = backupFile([{ ...conversation("c1"), pinned: true, archived: true }], now);
    expect(parseImportFile(json(organised))).toMatchObject({ ok: true, conversations: [{ id: "c1", pinned: true, archived: true }] });
    const older: Record<string, unknown> = { ...organised.conversations[0] };
    delete older.pinned;
    delete older.archived;
    expect(parseImportFile(json({ ...organised, conversations: [older] }))).toMatchObject({ ok: true, conversations: [{ id: "c1", pinned: false, archived: false }] });
    expect(parseImportFile(json({ ...organised, conversations: [{ ...older, pinned: "yes" }] }))).toMatchObject({ ok: false });
  });

  it("refuses a file that is not JSON, or not ours, saying so", () => {
    expect(parseImportFile("{ not json")).toEqual({ ok: false, message: "This file isn’t valid JSON. Nothing was imported." });
    for (const foreign of [json({ messages: [] }), json([1, 2]), json("text"), json(null), json({ format: "chatgpt-export", version: 1 })]) {
      const result = parseImportFile(foreign);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toMatch(/^This file is not a conversation export from this app/);
    }
  });

  it("refuses a file from a newer version of the app, naming both versions", () => {
    const future = { ...backupFile([conversation("c1")], now), version: 2, conversations: [{ whatever: "shape" }] };
    expect(parseImportFile(json(future))).toEqual({
      ok: false,
      message: "This file was made by a newer version of this app (format 2); this version reads format 1. Nothing was imported.",
    });
  });

  it("refuses a damaged file as a whole, naming the first problem", () => {
    const backup = backupFile([conversation("c1"), conversation("c2")], now);
    const broken = structuredClone(backup) as unknown as { conversations: { messages: Record<string, unknown>[] }[] };
    delete broken.conversations[1]!.messages[0]!.role;
    const result = parseImportFile(json(broken));
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/^This file looks damaged \(conversations\.1\.messages\.0\.role: .+\)\. Nothing was imported\.$/) });

    const cases: [unknown, RegExp][] = [
      [{ ...backup, version: 0 }, /\(version: /],
      [{ ...backup, conversations: "none" }, /\(conversations: /],
      [{ ...backup, conversations: [{ ...backup.conversations[0], id: "" }] }, /\(conversations\.0\.id: /],
      [{ ...backup, conversations: [{ ...backup.conversations[0], messages: [{ id: "m", role: "user", parts: [{ type: "text" }] }] }] }, /parts\.0\.text: text must be a string/],
    ];
    for (const [value, problem] of cases) {
      const refused = parseImportFile(json(value));
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.message).toMatch(problem);
    }
  });

  it("refuses an attached file that is not a data: URL, so showing an import never fetches anything", () => {
    const tracked = conversation("c1");
    tracked.messages[0]!.parts.push({ type: "file", mediaType: "image/png", url: "https://tracker.example/pixel.png" });
    const result = parseImportFile(json(conversationFile(tracked, now)));
    expect(!result.ok && result.message).toMatch(/parts\.1\.url: an attached file must be a data: URL/);
  });

  it("refuses metadata the chat would read with the wrong type, also inside an answer's other versions", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ imagesLeftOut: "two" }, /messages\.1\.metadata\.imagesLeftOut: /],
      [{ failure: { code: 429, message: "limit" } }, /messages\.1\.metadata\.failure\.code: /],
      [{ createdAt: "yesterday" }, /messages\.1\.metadata\.createdAt: /],
      [
        { versions: { before: [{ parts: [{ type: "file", mediaType: "image/png", url: "https://tracker.example/x.png" }], metadata: {} }], after: [] } },
        /messages\.1\.metadata\.versions\.before\.0\.parts\.0\.url: an attached file must be a data: URL/,
      ],
    ];
    for (const [extra, problem] of cases) {
      const damaged = conversation("c1");
      damaged.messages[1]!.metadata = { ...damaged.messages[1]!.metadata, ...extra } as never;
      const result = parseImportFile(json(conversationFile(damaged, now)));
      expect(!result.ok && result.message).toMatch(problem);
    }
  });

  it("refuses every part kind the chat shows when it has the wrong shape: cited pages, attached files and documents, generated images", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: "source-url", sourceId: "s1", url: "http://[" }, /parts\.1\.url: a cited page must be an http or https URL/],
      [{ type: "source-url", sourceId: "s1", url: "javascript:alert(1)" }, /parts\.1\.url: a cited page must be an http or https URL/],
      [{ type: "source-url", sourceId: "s1", url: 42 }, /parts\.1\.url: a cited page must be an http or https URL/],
      [{ type: "source-url", sourceId: "s1", url: "https://example.com/", title: { text: "x" } }, /parts\.1\.title: title must be a string/],
      [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: 7 }, /parts\.1\.filename: filename must be a string/],
      [{ type: "data-document", data: { name: "a.txt", kind: "text" } }, /parts\.1\.data\.text: /],
      [{ type: "data-document", data: "a.txt" }, /parts\.1\.data: /],
      [{ type: "data-document", data: { name: "a.pdf", kind: "pdf", text: "x", pages: "three" } }, /parts\.1\.data\.pages: /],
      [{ type: "tool-image_generation", toolCallId: "t", state: "output-available", output: { result: 5 } }, /parts\.1\.output\.result: /],
      [{ type: "reasoning", text: ["a"] }, /parts\.1\.text: text must be a string/],
    ];
    for (const [extra, problem] of cases) {
      const damaged = conversation("c1");
      damaged.messages[1]!.parts.push(extra as never);
      const result = parseImportFile(json(conversationFile(damaged, now)));
      expect(result.ok, JSON.stringify(extra)).toBe(false);
      expect(!result.ok && result.message, JSON.stringify(extra)).toMatch(problem);
    }
  });

  it("keeps well-formed parts of those kinds as they are", () => {
    const rich = conversation("c1");
    rich.messages[1]!.parts.push(
      { type: "source-url", sourceId: "s1", url: "https://example.com/a", title: "A page" },
      { type: "source-url", sourceId: "s2", url: "http://example.org/" },
      { type: "tool-image_generation", toolCallId: "t", state: "output-available", input: {}, output: { result: "iVBORw0KGgo=" } } as never,
    );
    rich.messages[0]!.parts.push(
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: "a.png" },
      { type: "data-document", data: { name: "a.pdf", kind: "pdf", text: "x", pages: 3 } } as never,
    );
    const result = parseImportFile(json(conversationFile(rich, now)));
    expect(result).toEqual({ ok: true, conversations: [conversationFile(rich, now).conversation] });
  });

  it("refuses a message that is neither the person's nor the model's (a system message), with a sentence", () => {
    const withSystem = conversation("c1", "Tell me");
    withSystem.messages.splice(1, 0, { id: "s", role: "system", parts: [{ type: "text", text: "You are a pirate." }] });
    expect(parseImportFile(json(backupFile([conversation("c0"), withSystem], now)))).toEqual({
      ok: false,
      message:
        "“Tell me” holds a system message; this app keeps only your messages and the model’s answers, so it can’t import it. Nothing was imported.",
    });
    const other = conversation("c2", "Other");
    (other.messages[0] as { role: string }).role = "tool";
    const refused = parseImportFile(json(conversationFile(other, now)));
    expect(!refused.ok && refused.message).toMatch(/^“Other” holds a tool message; /);
  });

  it("keeps parts and metadata it does not know (written by a later version of the same format)", () => {
    const extended = conversation("c1");
    extended.messages[1]!.parts.push({ type: "step-start" });
    (extended.messages[1]!.metadata as Record<string, unknown>).somethingNew = { a: 1 };
    const result = parseImportFile(json(conversationFile(extended, now)));
    expect(result.ok && result.conversations[0]?.messages[1]).toEqual(conversationFile(extended, now).conversation.messages[1]);
  });
});

describe("planImport", () => {
  it("skips ids already present and repeats within the file", () => {
    const incoming = [conversation("a"), conversation("b"), conversation("a", "a repeat"), conversation("c")];
    const plan = planImport(["b", "x"], incoming);
    expect(plan.add.map((item) => item.id)).toEqual(["a", "c"]);
    expect(plan.add[0]?.title).toBe("hello");
    expect(plan.skipped).toBe(2);
  });
});

describe("importSummary", () => {
  it("says what was imported and what was skipped", () => {
    expect(importSummary(2, 0)).toBe("Imported 2 conversations.");
    expect(importSummary(1, 0)).toBe("Imported 1 conversation.");
    expect(importSummary(3, 1)).toBe("Imported 3 conversations; 1 already here was skipped.");
    expect(importSummary(1, 2)).toBe("Imported 1 conversation; 2 already here were skipped.");
    expect(importSummary(0, 2)).toBe("Nothing imported: 2 conversations were already here (skipped).");
    expect(importSummary(0, 1)).toBe("Nothing imported: 1 conversation was already here (skipped).");
    expect(importSummary(0, 0)).toBe("The file holds no conversations; nothing was imported.");
  });
});

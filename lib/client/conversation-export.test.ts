import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "./chat-turns";
import {
  backupFile,
  backupFileName,
  conversationFile,
  conversationMarkdown,
  fileNameFor,
  formatExportTime,
} from "./conversation-export";
import type { Conversation } from "./conversation-store";

const at = Date.UTC(2026, 4, 1, 9, 30);
const png = "data:image/png;base64,iVBORw0KGgo=";

function sample(): Conversation {
  const messages: ChatUIMessage[] = [
    {
      id: "u1",
      role: "user",
      parts: [
        { type: "file", mediaType: "image/png", url: png, filename: "chart.png" },
        { type: "text", text: "What does this chart show?" },
      ],
    },
    { id: "a1", role: "assistant", metadata: { model: "gpt-5.5", createdAt: at }, parts: [{ type: "reasoning", text: "thinking" }, { type: "text", text: "Sales went **up**." }] },
    {
      id: "u2",
      role: "user",
      parts: [
        { type: "data-document", data: { name: "sales.csv", kind: "text", text: "month,total\nMay,12" } },
        { type: "text", text: "Draw it as a bar chart" },
      ],
    } as ChatUIMessage,
    {
      id: "a2",
      role: "assistant",
      metadata: { model: "gpt-image", createdAt: at + 60_000 },
      parts: [{ type: "tool-image_generation", toolCallId: "t1", state: "output-available", input: {}, output: { result: "iVBORw0KGgo=" } }],
    },
    { id: "u3", role: "user", metadata: { failure: { code: "usage_limit", message: "You reached your plan's limit." } }, parts: [{ type: "text", text: "And again?" }] },
  ];
  return { id: "c1", accountId: "acct_secret", title: "Sales chart", titleEdited: false, pinned: true, archived: false, createdAt: at, updatedAt: at + 120_000, messages };
}

describe("Markdown export", () => {
  it("writes each turn's question and answer under a heading with its time and model; images are noted, not inlined", () => {
    const markdown = conversationMarkdown(sample());
    expect(markdown).toBe(
      [
        "# Sales chart",
        "## Turn 1 · 2026-05-01 09:30 UTC · gpt-5.5",
        "**You:**",
        "What does this chart show?",
        "_[Image attached: chart.png]_",
        "**Answer:**",
        "Sales went **up**.",
        "## Turn 2 · 2026-05-01 09:31 UTC · gpt-image",
        "**You:**",
        "Draw it as a bar chart",
        "_[Document attached: sales.csv]_",
        "**Answer:**",
        "_[Generated image, not included]_",
        "## Turn 3",
        "**You:**",
        "And again?",
        "_This turn failed: You reached your plan's limit._",
      ].join("\n\n") + "\n",
    );
    expect(markdown).not.toContain("base64");
    expect(markdown).not.toContain("month,total");
    expect(markdown).not.toContain("thinking");
  });

  it("marks an answer cut short, and keeps a voice transcript that starts with the assistant", () => {
    const markdown = conversationMarkdown({
      title: "Call",
      messages: [
        { id: "a0", role: "assistant", parts: [{ type: "text", text: "Hello, how can I help?" }] },
        { id: "u1", role: "user", parts: [{ type: "text", text: "Tell me a story" }] },
        { id: "a1", role: "assistant", metadata: { interrupted: true }, parts: [{ type: "text", text: "Once upon" }] },
      ],
    });
    expect(markdown).toContain("## Turn 1\n\n**Answer:**\n\nHello, how can I help?");
    expect(markdown).toContain("## Turn 2\n\n**You:**\n\nTell me a story\n\n**Answer (incomplete):**\n\nOnce upon");
  });
});

describe("JSON export", () => {
  it("a single conversation and a backup carry a format, a version and everything but the account", () => {
    const now = new Date(at);
    const single = conversationFile(sample(), now);
    expect(single).toMatchObject({ format: "lwc-chat-conversation", version: 1, exportedAt: "2026-05-01T09:30:00.000Z" });
    expect(single.conversation).not.toHaveProperty("accountId");
    expect(single.conversation).toMatchObject({ title: "Sales chart", titleEdited: false, pinned: true, archived: false });
    expect(single.conversation.messages[0]?.parts[0]).toMatchObject({ url: png });
    const backup = backupFile([sample(), { ...sample(), id: "c2" }], now);
    expect(backup).toMatchObject({ format: "lwc-chat-backup", version: 1 });
    expect(backup.conversations.map((conversation) => conversation.id)).toEqual(["c1", "c2"]);
    expect(JSON.stringify(backup)).not.toContain("acct_secret");
  });
});

describe("file names and times", () => {
  it("makes a plain file name from any title", () => {
    expect(fileNameFor("describe the chart", "md")).toBe("describe-the-chart.md");
    expect(fileNameFor("Café: «crème brûlée»?!", "json")).toBe("cafe-creme-brulee.json");
    expect(fileNameFor("../../etc/passwd", "md")).toBe("etc-passwd.md");
    expect(fileNameFor("…", "md")).toBe("conversation.md");
    expect(fileNameFor("word ".repeat(30), "md").length).toBeLessThanOrEqual(63);
    expect(backupFileName(new Date(at))).toBe("chats-backup-2026-05-01.json");
    expect(formatExportTime(at)).toBe("2026-05-01 09:30 UTC");
  });
});

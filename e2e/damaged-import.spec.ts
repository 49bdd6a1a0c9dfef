import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";
import { storeConversations, storedConversation, storedConversationIds, type StoredConversation } from "./support/stored-conversations";

/**
 * A damaged backup cannot break the page: the import refuses what the chat could not show, and a
 * conversation an older version imported anyway shows its broken message as one line, after a
 * reload too, while the rest of it and its next turn work.
 */

/** A one-conversation backup, as Export all writes it, with `change` applied to its answer. */
function backupWith(title: string, change: (answer: Record<string, unknown>) => void) {
  const conversation = storedConversation(title, [["the question", "the answer"]]);
  change(conversation.messages[1] as unknown as Record<string, unknown>);
  return { format: "lwc-chat-backup", version: 1, exportedAt: new Date().toISOString(), conversations: [conversation] };
}

const fileOf = (name: string, value: unknown) => ({ name, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(value)) });

test.describe("a damaged backup", () => {
  test("with a cited page that is no URL, a title that is no string or a system message is refused with a sentence; the page keeps working, after a reload too", async ({ page, signedInChat: chat, account }) => {
    await chat.sendAndWaitForReply("a chat of my own", expectedReply("a chat of my own"));
    await expect(chat.conversationItems).toHaveCount(1);
    const idsBefore = await storedConversationIds(page, account.accountId);

    const damaged: [name: string, backup: unknown, sentence: RegExp][] = [
      [
        "bad-url.json",
        backupWith("Bad URL", (answer) => (answer.parts as unknown[]).push({ type: "source-url", sourceId: "s1", url: "http://[" })),
        /looks damaged \(conversations\.0\.messages\.1\.parts\.1\.url: a cited page must be an http or https URL\)\. Nothing was imported\./,
      ],
      [
        "bad-title.json",
        backupWith("Bad title", (answer) => (answer.parts as unknown[]).push({ type: "source-url", sourceId: "s1", url: "https://example.com/", title: 7 })),
        /parts\.1\.title: title must be a string/,
      ],
      [
        "system.json",
        backupWith("With a system message", (answer) => (answer.role = "system")),
        /^“With a system message” holds a system message; this app keeps only your messages and the model’s answers, so it can’t import it\. Nothing was imported\.$/,
      ],
    ];
    for (const [name, backup, sentence] of damaged) {
      await chat.importInput.setInputFiles(fileOf(name, backup));
      await expect(chat.importError).toHaveText(sentence);
      await expect(chat.importStatus).toHaveCount(0);
      expect(await storedConversationIds(page, account.accountId)).toEqual(idsBefore);
    }
    await expect(chat.conversationItems).toHaveCount(1);
    await chat.sendAndWaitForReply("still here", expectedReply("still here"));

    await page.reload();
    await expect(chat.conversationItems).toHaveCount(1);
    await chat.conversation("a chat of my own").getByTestId("conversation-link").click();
    await expect(chat.assistantMessages).toHaveCount(2);
    await expect(chat.unavailableMessages).toHaveCount(0);
  });
});

test.describe("a conversation an older import left damaged", () => {
  test("shows the message it cannot show as one line, keeps the rest, survives a reload, and its next turn works", async ({ page, signedInChat: chat, account }) => {
    const damaged: StoredConversation = {
      id: randomUUID(),
      title: "Imported long ago",
      titleEdited: false,
      createdAt: Date.now() - 60_000,
      updatedAt: Date.now(),
      messages: [
        { id: randomUUID(), role: "user", parts: [{ type: "text", text: "first question" }] },
        {
          id: randomUUID(),
          role: "assistant",
          parts: [
            { type: "text", text: "first answer with sources" },
            // What the import let through before it checked cited pages: the page still opens.
            { type: "source-url", sourceId: "s1", url: "http://[" },
            { type: "source-url", sourceId: "s2", url: "https://example.com/cited", title: { not: "a string" } },
          ],
        },
        { id: randomUUID(), role: "system", parts: [{ type: "text", text: "You are a pirate." }] },
        { id: randomUUID(), role: "user", parts: [{ type: "text", text: "second question" }] },
        // A part the answer cannot be drawn from (a summary that is not text): this message alone fails.
        { id: randomUUID(), role: "assistant", parts: [{ type: "reasoning", text: 42 }, { type: "text", text: "second answer" }] },
      ],
    };
    await storeConversations(page, account.accountId, [damaged]);

    const expectShownWithoutTheDamage = async () => {
      await expect(chat.userMessages).toHaveCount(2);
      await expect(chat.assistantMessages).toHaveCount(1);
      await expect(chat.assistantMessages.first()).toContainText("first answer with sources");
      await expect(chat.sourceLinks).toHaveCount(1);
      await expect(chat.sourceLinks.first()).toHaveText("example.com");
      // The system message and the answer that cannot be drawn: one line each, nothing of their text.
      await expect(chat.unavailableMessages).toHaveCount(2);
      await expect(chat.unavailableMessages.first()).toHaveText("This message can't be shown.");
      await expect(page.getByText("You are a pirate.")).toHaveCount(0);
      await expect(chat.input).toBeEditable();
    };
    await page.reload();
    await chat.conversation("Imported long ago").getByTestId("conversation-link").click();
    await expectShownWithoutTheDamage();
    await page.reload();
    await expectShownWithoutTheDamage();

    // The system message is not sent: the next turn is answered.
    await chat.sendAndWaitForReply("third question", expectedReply("third question"));
    await expect(chat.error).toHaveCount(0);
  });
});

import { writeFile } from "node:fs/promises";
import type { Page, Request } from "@playwright/test";
import { gradientPng } from "../mock-upstream/images-png";
import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";
import { keepChatsOnThisDevice, signInThroughControlApi } from "./support/sign-in";
import { storedConversationIds } from "./support/stored-conversations";

/** Every request body the page sends from now on, to show that exports and imports stay in the browser. */
function recordRequestBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on("request", (request: Request) => bodies.push(`${request.method()} ${request.url()} ${request.postData() ?? ""}`));
  return bodies;
}

/** An import file for setInputFiles. */
function jsonFile(name: string, value: unknown): { name: string; mimeType: string; buffer: Buffer } {
  return { name, mimeType: "application/json", buffer: Buffer.from(typeof value === "string" ? value : JSON.stringify(value)) };
}

test.describe("export and import", () => {
  test("a conversation exports as Markdown (turns, model, time; images noted, not inlined) and as JSON", async ({ page, signedInChat: chat }) => {
    // Kept on this device only, so that nothing at all leaves the browser (the server's copy would otherwise get it).
    await keepChatsOnThisDevice(page);
    await chat.selectModel("gpt-5.5");
    await chat.attachInput.setInputFiles({ name: "chart.png", mimeType: "image/png", buffer: gradientPng(64, 48) });
    await expect(chat.attachments).toHaveCount(1);
    await chat.input.fill("describe the chart");
    await chat.sendButton.click();
    await expect(chat.lastAssistantMessage()).toContainText("You sent 1 image");
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await chat.sendAndWaitForReply("and its colours?", expectedReply("and its colours?"));
    await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
    const id = chat.conversationIdInUrl();
    const sent = recordRequestBodies(page);

    let menu = await chat.openConversationMenu("describe the chart");
    const markdown = await chat.download(() => menu.getByTestId("conversation-export-markdown").click());
    expect(markdown.name).toBe("describe-the-chart.md");
    expect(markdown.text).toMatch(/^# describe the chart\n/);
    expect(markdown.text).toMatch(/## Turn 1 · \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · gpt-5\.5\n/);
    expect(markdown.text).toMatch(/## Turn 2 · \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · gpt-5\.5\n/);
    expect(markdown.text).toContain("**You:**\n\ndescribe the chart");
    expect(markdown.text).toContain("_[Image attached: chart.png]_");
    expect(markdown.text).toContain(`**Answer:**\n\n${expectedReply("and its colours?")}`);
    expect(markdown.text).not.toContain("data:image");

    menu = await chat.openConversationMenu("describe the chart");
    const json = await chat.download(() => menu.getByTestId("conversation-export-json").click());
    expect(json.name).toBe("describe-the-chart.json");
    const exported = JSON.parse(json.text) as { format: string; version: number; conversation: { id: string; title: string; messages: unknown[] } };
    expect(exported).toMatchObject({ format: "lwc-chat-conversation", version: 1, conversation: { id, title: "describe the chart" } });
    expect(exported.conversation.messages).toHaveLength(4);
    expect(json.text).toContain("data:image/png;base64,"); // the JSON keeps the image, to restore it whole

    expect(sent.filter((line) => line.includes("describe the chart"))).toEqual([]);
  });

  test("Export all writes one backup; Import restores it, skips what is already here, and sends nothing", async ({ page, signedInChat: chat, mock, account }, testInfo) => {
    // Two replies, signing out and in again, and two imports.
    test.slow();
    // A browser's own copy: kept on this device only (with the server's copy, signing in again would bring them back).
    await keepChatsOnThisDevice(page);
    await chat.sendAndWaitForReply("kept topic one", expectedReply("kept topic one"));
    await chat.newChatButton.click();
    await chat.sendAndWaitForReply("kept topic two", expectedReply("kept topic two"));
    await expect(chat.conversationItems).toHaveCount(2);
    const idsBefore = await storedConversationIds(page, account.accountId);
    const sent = recordRequestBodies(page);

    const backup = await chat.download(() => chat.exportAllButton.click());
    expect(backup.name).toMatch(/^chats-backup-\d{4}-\d{2}-\d{2}\.json$/);
    const parsed = JSON.parse(backup.text) as { format: string; version: number; conversations: { id: string }[] };
    expect(parsed.format).toBe("lwc-chat-backup");
    expect(parsed.version).toBe(1);
    expect(parsed.conversations.map((conversation) => conversation.id).sort()).toEqual(idsBefore);
    const backupPath = testInfo.outputPath("backup.json");
    await writeFile(backupPath, backup.text);

    // A cleared browser: forget this device, sign in again, restore.
    await chat.signOutAndForget();
    await expect(page.getByTestId("sign-in-button")).toBeVisible();
    const restored = await signInThroughControlApi(page, mock, account);
    await keepChatsOnThisDevice(page);
    await expect(restored.conversationItems).toHaveCount(0);

    await restored.importInput.setInputFiles(backupPath);
    await expect(restored.importStatus).toHaveText("Imported 2 conversations.");
    await expect(restored.conversationItems).toHaveCount(2);
    expect(await storedConversationIds(page, account.accountId)).toEqual(idsBefore);
    await restored.conversation("kept topic one").getByTestId("conversation-link").click();
    await expect(restored.userMessages).toContainText("kept topic one");
    await expect(restored.lastAssistantMessage()).toContainText(expectedReply("kept topic one"));

    await restored.importInput.setInputFiles(backupPath);
    await expect(restored.importStatus).toHaveText("Nothing imported: 2 conversations were already here (skipped).");
    await expect(restored.conversationItems).toHaveCount(2);
    expect(await storedConversationIds(page, account.accountId)).toEqual(idsBefore);

    expect(sent.filter((line) => line.includes("kept topic"))).toEqual([]);
  });

  test("a single exported conversation imports on its own; malformed, foreign and newer files are refused and change nothing", async ({ page, signedInChat: chat, account }) => {
    await chat.sendAndWaitForReply("the only chat", expectedReply("the only chat"));
    await expect(chat.conversationItems).toHaveCount(1);
    const menu = await chat.openConversationMenu("the only chat");
    const single = JSON.parse((await chat.download(() => menu.getByTestId("conversation-export-json").click())).text) as {
      format: string;
      version: number;
      conversation: { id: string; title: string; messages: unknown[] };
    };
    const idsBefore = await storedConversationIds(page, account.accountId);

    const refusals: [file: ReturnType<typeof jsonFile>, message: RegExp][] = [
      [jsonFile("broken.json", "{ not json"), /isn’t valid JSON/],
      [jsonFile("other-app.json", { messages: [{ author: "me", content: "hi" }] }), /not a conversation export from this app/],
      [jsonFile("future.json", { ...single, version: 99 }), /newer version of this app \(format 99\)/],
      [
        jsonFile("damaged.json", { ...single, conversation: { ...single.conversation, id: "another-id", messages: [{ id: "m1", parts: [] }] } }),
        /damaged.*conversation\.messages\.0\.role/s,
      ],
    ];
    for (const [file, message] of refusals) {
      await chat.importInput.setInputFiles(file);
      await expect(chat.importError).toContainText(message);
      await expect(chat.importStatus).toHaveCount(0);
      expect(await storedConversationIds(page, account.accountId)).toEqual(idsBefore);
      await expect(chat.conversationItems).toHaveCount(1);
    }

    const copy = { ...single, conversation: { ...single.conversation, id: "imported-copy", title: "An imported copy" } };
    await chat.importInput.setInputFiles(jsonFile("copy.json", copy));
    await expect(chat.importStatus).toHaveText("Imported 1 conversation.");
    await expect(chat.importError).toHaveCount(0);
    await expect(chat.conversationItems).toHaveCount(2);
    await expect(chat.conversation("An imported copy")).toHaveCount(1);
  });
});

test.describe("export and import on a phone", () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("Export all and Import sit in the drawer, within the screen", async ({ page, signedInChat: chat }) => {
    await chat.sendAndWaitForReply("a phone chat", expectedReply("a phone chat"));
    await page.getByTestId("conversations-button").click();
    const drawer = page.getByTestId("conversations-drawer");
    const exportAll = drawer.getByTestId("export-all-button");
    await expect(exportAll).toBeInViewport({ ratio: 1 });
    await expect(drawer.getByTestId("import-button")).toBeInViewport({ ratio: 1 });
    const backup = await chat.download(() => exportAll.click());
    expect((JSON.parse(backup.text) as { conversations: unknown[] }).conversations).toHaveLength(1);
  });
});

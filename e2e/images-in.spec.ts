import { gradientPng } from "../mock-upstream/images-png";
import { expect, test } from "./fixtures";

interface InputPart {
  type: string;
  image_url?: string;
}

async function imagePartsSent(mock: { responsesRequestsOf(id: string): Promise<{ body: unknown }[]> }, accountId: string): Promise<InputPart[]> {
  const [request] = (await mock.responsesRequestsOf(accountId)).slice(-1);
  const input = (request?.body as { input?: { role?: string; content?: InputPart[] }[] }).input ?? [];
  return input.filter((item) => item.role === "user").flatMap((item) => item.content ?? []).filter((part) => part.type === "input_image");
}

test.describe("images in", () => {
  test("an attached picture reaches the model as input_image, and the answer names it", async ({ signedInChat: chat, mock, account }) => {
    await chat.attachInput.setInputFiles({ name: "chart.png", mimeType: "image/png", buffer: gradientPng(64, 48) });
    await expect(chat.attachments).toHaveCount(1);
    await chat.input.fill("what is in this picture?");
    await chat.sendButton.click();

    await expect(chat.lastAssistantMessage()).toContainText("You sent 1 image (image/png, 64×48");
    await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");
    await expect(chat.attachments).toHaveCount(0);
    await expect(chat.userMessages.last().getByTestId("message-image")).toBeVisible();
    const parts = await imagePartsSent(mock, account.accountId);
    expect(parts).toHaveLength(1);
    expect(parts[0]?.image_url).toMatch(/^data:image\/png;base64,/);
  });

  test("a large photo is shrunk in the browser to the bounds before it is sent", async ({ signedInChat: chat, mock, account }) => {
    await chat.attachInput.setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: gradientPng(4032, 3024) });
    await expect(chat.attachments).toHaveCount(1);
    await chat.input.fill("a phone photo");
    await chat.sendButton.click();
    await expect(chat.lastAssistantMessage()).toContainText("You sent 1 image (image/jpeg, 2048×1536");
    const parts = await imagePartsSent(mock, account.accountId);
    expect(parts[0]?.image_url?.length).toBeLessThanOrEqual(1_000_000);
  });

  test("pasted and dropped images are attached, and one can be removed", async ({ page, signedInChat: chat }) => {
    const base64 = gradientPng(40, 30).toString("base64");
    await page.evaluate(async (data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const transfer = (name: string) => {
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], name, { type: "image/png" }));
        return dt;
      };
      const input = document.querySelector('[data-testid="chat-input"]')!;
      input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer("pasted.png"), bubbles: true, cancelable: true }));
      input.closest("form")!.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer("dropped.png"), bubbles: true, cancelable: true }));
    }, base64);
    await expect(chat.attachments).toHaveCount(2);
    // Both are shrunk in parallel, so either may land first.
    const alts = await chat.attachments.locator("img").evaluateAll((images) => images.map((image) => image.getAttribute("alt")));
    expect(alts.sort()).toEqual(["dropped.png", "pasted.png"]);

    await chat.attachments.first().getByTestId("remove-attachment").click();
    await expect(chat.attachments).toHaveCount(1);
  });

  test("wrong types and oversized files are refused before anything is sent", async ({ signedInChat: chat, mock, account }) => {
    // (A PDF or a text file is read as a document now: e2e/documents.spec.ts.)
    await chat.attachInput.setInputFiles({ name: "archive.zip", mimeType: "application/zip", buffer: Buffer.from("PK\u0003\u0004") });
    await expect(chat.attachError).toContainText("isn't an image");
    await chat.attachInput.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(26 * 1024 * 1024) });
    await expect(chat.attachError).toContainText("too large");
    await expect(chat.attachments).toHaveCount(0);
    expect(await mock.responsesRequestsOf(account.accountId)).toHaveLength(0);
  });

  test("images are offered only to models that take them", async ({ signedInChat: chat }) => {
    await chat.selectModel("gpt-5.5");
    await expect(chat.attachButton).toBeVisible();
    await chat.selectModel("gpt-5.4-mini");
    await expect(chat.attachButton).toHaveCount(0);
  });
});

import { gradientPng } from "../mock-upstream/images-png";
import { expect, test } from "./fixtures";
import { TurnControls } from "./pages/turn-controls";
import { expectedReply } from "./support/mock-replies";

interface InputItem {
  role?: string;
  content?: { type: string }[];
}

for (const width of [1280, 390]) {
  test.describe(`images and a text-only model (${width} px)`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("after a picture, a turn on a text-only model leaves the images out, says so, and is answered", async ({ page, signedInChat: chat, mock, account }) => {
      // Sign-in and three answers, one with an image: the slow budget on a busy machine.
      test.slow();
      const turns = new TurnControls(page);
      // Picked by what the catalog says each model takes, not by name.
      const models = await turns.modelsByImageInput();
      const withImages = models.withImages[0];
      const textOnly = models.textOnly[0];
      if (!withImages || !textOnly) throw new Error("the mock's catalog needs a model with image input and a text-only one");

      await chat.selectModel(withImages.slug);
      await chat.attachInput.setInputFiles({ name: "chart.png", mimeType: "image/png", buffer: gradientPng(64, 48) });
      await chat.input.fill("what is in this picture?");
      await chat.sendButton.click();
      await expect(chat.lastAssistantMessage()).toContainText("You sent 1 image");
      await expect(chat.lastAssistantMessage()).toHaveAttribute("data-status", "done");

      // The picker says which models read text only, and switching to one warns before anything is sent.
      await expect(chat.modelPicker.locator(`option[value="${textOnly.slug}"]`)).toHaveText(/text only/);
      await chat.selectModel(textOnly.slug);
      await expect(chat.attachButton).toHaveCount(0);
      await expect(turns.imagesLeftOutNotice).toBeVisible();
      await expect(turns.imagesLeftOutNotice).toContainText(textOnly.displayName);

      const reply = await chat.sendAndWaitForReply("and without the picture?", expectedReply("and without the picture?", "what is in this picture?"));
      await expect(reply).not.toContainText("You sent");
      await expect(chat.error).toHaveCount(0);
      await expect(chat.retryTurnButton).toHaveCount(0);
      const note = turns.imagesLeftOutNote(chat.userMessages.last());
      await expect(note).toBeVisible();
      await expect(note).toContainText("1 image");
      await expect(note).toContainText(textOnly.displayName);
      // The first turn's picture is still on screen; only the request went without it.
      await expect(chat.userMessages.first().getByTestId("message-image")).toBeVisible();

      const last = (await mock.responsesRequestsOf(account.accountId)).at(-1)!;
      expect(last.body).toMatchObject({ model: textOnly.slug });
      const input = (last.body as { input: InputItem[] }).input;
      expect(input.flatMap((item) => item.content ?? []).filter((part) => part.type === "input_image")).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

      // Back on a model that takes images, the picture goes with the conversation again.
      await chat.selectModel(withImages.slug);
      await expect(turns.imagesLeftOutNotice).toHaveCount(0);
      await chat.sendAndWaitForReply("and with it?", expectedReply("and with it?", "what is in this picture?"));
      const again = (await mock.responsesRequestsOf(account.accountId)).at(-1)!;
      const images = (again.body as { input: InputItem[] }).input.flatMap((item) => item.content ?? []).filter((part) => part.type === "input_image");
      expect(images).toHaveLength(1);
      await expect(turns.imagesLeftOutNote(chat.userMessages.last())).toHaveCount(0);
    });
  });
}

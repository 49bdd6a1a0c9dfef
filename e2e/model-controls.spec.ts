import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";

test.describe("model-aware controls", () => {
  test("the picker shows model names", async ({ signedInChat: chat }) => {
    await expect(chat.modelPicker.locator("option")).toHaveText(["GPT-5.5", "GPT-5.5-Codex", "GPT-5.5-Mini"]);
    await expect(chat.modelPicker.locator("option").first()).toHaveAttribute("value", "gpt-5.5");
  });

  test("switching models clamps effort and Fast to what the model supports", async ({ signedInChat: chat, mock, account }) => {
    await chat.selectModel("gpt-5.5");
    await chat.reasoningEffort.selectOption("xhigh");
    await chat.fastToggle.click();
    await expect(chat.fastToggle).toBeChecked();

    await chat.selectModel("gpt-5.5-mini");
    await expect(chat.reasoningEffort).toHaveValue("medium");
    await expect(chat.reasoningEffort.locator("option")).toHaveText(["Low", "Medium", "High"]);
    // Mini has no service tiers: Fast is not offered, so no request is spent on a refused tier.
    await expect(chat.fastToggle).toHaveCount(0);

    await chat.sendAndWaitForReply("small model please", expectedReply("small model please"));
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(1);
    const body = requests[0]?.body as { model?: string; reasoning?: { effort?: string }; service_tier?: string };
    expect(body.model).toBe("gpt-5.5-mini");
    expect(body.reasoning?.effort).toBe("medium");
    expect(body).not.toHaveProperty("service_tier");

    // The preference survives the detour: back on GPT-5.5 it is Extra high and Fast again.
    await chat.selectModel("gpt-5.5");
    await expect(chat.reasoningEffort).toHaveValue("xhigh");
    await expect(chat.fastToggle).toBeChecked();
  });
});

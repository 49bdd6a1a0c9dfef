import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";

test.describe("model-aware controls", () => {
  test("the picker shows model names, and a model above the server's client version as unavailable with the reason", async ({ signedInChat: chat }) => {
    await expect(chat.modelPicker.locator("option")).toHaveText([
      "GPT-6.1 Sol",
      "GPT-6 Astra",
      "GPT-6 Sol",
      "GPT-6 Luna",
      "GPT-7 Sol · unavailable: needs a newer client version",
      "GPT-5.5",
      "GPT-5.4-Mini · text only",
    ]);
    const gated = chat.modelPicker.locator("option").nth(4);
    await expect(gated).toHaveAttribute("value", "gpt-7-sol");
    await expect(gated).toBeDisabled();
    await expect(gated).toHaveAttribute("title", /LWC_CLIENT_VERSION/);
    // The default is the first model the server can use.
    await expect(chat.modelPicker).toHaveValue("gpt-6.1-sol");
  });

  test("switching models clamps effort and Fast to what the model supports", async ({ signedInChat: chat, mock, account }) => {
    await chat.selectModel("gpt-6.1-sol");
    // Today's efforts, without ultra (Codex only).
    await expect(chat.reasoningEffort.locator("option")).toHaveText(["Low", "Medium", "High", "Extra high", "Max"]);
    await chat.reasoningEffort.selectOption("max");
    await chat.fastToggle.click();
    await expect(chat.fastToggle).toBeChecked();

    await chat.selectModel("gpt-5.4-mini");
    await expect(chat.reasoningEffort).toHaveValue("medium");
    await expect(chat.reasoningEffort.locator("option")).toHaveText(["None", "Minimal", "Low", "Medium", "High"]);
    // Mini has no service tiers: Fast is not offered, so no request is spent on a refused tier.
    await expect(chat.fastToggle).toHaveCount(0);

    await chat.sendAndWaitForReply("small model please", expectedReply("small model please"));
    const requests = await mock.responsesRequestsOf(account.accountId);
    expect(requests).toHaveLength(1);
    const body = requests[0]?.body as { model?: string; reasoning?: { effort?: string }; service_tier?: string };
    expect(body.model).toBe("gpt-5.4-mini");
    expect(body.reasoning?.effort).toBe("medium");
    expect(body).not.toHaveProperty("service_tier");

    // The preference survives the detour: back on GPT-6.1 Sol it is Max and Fast again.
    await chat.selectModel("gpt-6.1-sol");
    await expect(chat.reasoningEffort).toHaveValue("max");
    await expect(chat.fastToggle).toBeChecked();
  });

  test("Minimal on a model that does not take it is sent as the model's lowest effort", async ({ signedInChat: chat, mock, account }) => {
    await chat.selectModel("gpt-5.4-mini");
    await chat.reasoningEffort.selectOption("minimal");
    await chat.selectModel("gpt-6-luna");
    await expect(chat.reasoningEffort).toHaveValue("low");

    await chat.sendAndWaitForReply("barely think", expectedReply("barely think"));
    const [request] = await mock.responsesRequestsOf(account.accountId);
    expect(request?.body).toMatchObject({ model: "gpt-6-luna", reasoning: { effort: "low" } });
  });
});

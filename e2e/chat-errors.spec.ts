import { E2E_RATE_LIMIT_PER_MINUTE } from "./support/servers";
import { expect, test } from "./fixtures";
import { expectedReply } from "./support/mock-replies";

const RATE_LIMIT_WINDOW_MS = 60_000;
const ROOM_NEEDED_MS = 20_000;

/**
 * The app's limiter counts in fixed windows aligned to whole minutes since the epoch. Six sends
 * take a few seconds; if a window boundary fell between them the count would restart and the
 * sixth would pass. So start only when the current window has enough time left.
 */
async function waitForRoomInRateLimitWindow(): Promise<void> {
  await expect
    .poll(() => RATE_LIMIT_WINDOW_MS - (Date.now() % RATE_LIMIT_WINDOW_MS), {
      message: "enough time left in the current rate-limit window",
      intervals: [250],
      timeout: ROOM_NEEDED_MS + 5_000,
    })
    .toBeGreaterThan(ROOM_NEEDED_MS);
}

test.describe("chat errors and recovery", () => {
  test("the message past the per-session rate limit is refused with a wait in seconds", async ({
    signedInChat: chat,
    mock,
    account,
  }) => {
    // Sign-in, up to 25 s for a fresh window and six replies can outgrow the 60 s budget on a busy machine.
    test.slow();
    await waitForRoomInRateLimitWindow();
    for (let turn = 1; turn <= E2E_RATE_LIMIT_PER_MINUTE; turn += 1) {
      await chat.sendAndWaitForReply(`turn ${turn}`, `You said: "turn ${turn}".`);
    }
    await expect(chat.error).toBeHidden();

    await chat.send("one too many");
    await expect(chat.error).toHaveAttribute("data-error-code", "rate_limited");
    await expect(chat.error).toHaveAttribute("role", "alert");
    await expect(chat.error).toHaveText(/\d+\s*(s\b|sec|second)/i);

    // The refused message never reached the model backend.
    const upstreamRequests = await mock.responsesRequestsOf(account.accountId);
    expect(upstreamRequests).toHaveLength(E2E_RATE_LIMIT_PER_MINUTE);
  });

  test("an upstream 500 is reported, and the next message works", async ({ signedInChat: chat, mock, account }) => {
    await mock.addFault({ fault: "server_error", accountId: account.accountId, times: 1 });

    await chat.send("this one fails");
    await expect(chat.error).toHaveAttribute("data-error-code", "responses_request_failed");
    await expect(chat.error).toContainText("500");

    await chat.sendAndWaitForReply("this one works", expectedReply("this one works"));
    await expect(chat.error).toBeHidden();
  });

  test("the plan's usage limit is explained with when it resets, and the chat recovers", async ({
    signedInChat: chat,
    mock,
    account,
  }) => {
    await mock.addFault({ fault: "usage_limit", accountId: account.accountId, times: 1 });

    await chat.send("over the limit");
    await expect(chat.error).toBeVisible();
    await expect(chat.error).toHaveAttribute("data-error-code", "usage_limit");
    await expect(chat.error).toContainText(/usage limit/i);
    await expect(chat.error).toContainText(/reset/i);

    await chat.sendAndWaitForReply("back under it", expectedReply("back under it"));
    await expect(chat.error).toBeHidden();
  });

  test("Fast falls back to the standard tier when upstream rejects it, and the reply still arrives", async ({
    signedInChat: chat,
    mock,
    account,
  }) => {
    await chat.selectModel("gpt-5.5");
    await chat.fastToggle.check();
    await expect(chat.fastToggle).toBeChecked();
    await mock.addFault({ fault: "fast_tier_rejected", accountId: account.accountId, times: 1 });

    await chat.sendAndWaitForReply("quickly please", expectedReply("quickly please"));
    await expect(chat.fallbackNotice).toBeVisible();
    await expect(chat.error).toBeHidden();

    // One rejected attempt with the fast tier, then one retry without it.
    const [rejected, retried] = await mock.responsesRequestsOf(account.accountId);
    expect(rejected?.body).toHaveProperty("service_tier");
    expect(retried?.body).not.toHaveProperty("service_tier");
  });
});

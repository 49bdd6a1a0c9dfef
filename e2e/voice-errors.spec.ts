import { VoicePage } from "./pages/voice-page";
import { signInThroughControlApi } from "./support/sign-in";
import { expect, test } from "./support/voice-fixtures";
import { installVoiceProbe, microphoneTrackStates } from "./support/voice-probe";

test.describe("voice errors", () => {
  test("a denied microphone is explained in words, with how to allow it", async ({ playwright, mock, account }, testInfo) => {
    // The voice project's browser grants the microphone without asking; this one refuses it, as a
    // person pressing "Block" would. `--use-fake-ui-for-media-stream=deny` is Chromium's own switch.
    const launchOptions = testInfo.project.use.launchOptions ?? {};
    const args = (launchOptions.args ?? []).map((arg) => (arg === "--use-fake-ui-for-media-stream" ? "--use-fake-ui-for-media-stream=deny" : arg));
    const browser = await playwright.chromium.launch({ ...launchOptions, args });
    try {
      const page = await browser.newPage({ baseURL: testInfo.project.use.baseURL });
      await installVoiceProbe(page);
      await signInThroughControlApi(page, mock, account);
      const voice = new VoicePage(page);
      await voice.open();
      await voice.startButton.click();
      await expect(voice.error).toHaveAttribute("data-error-code", "microphone_denied");
      await expect(voice.error).toContainText("Microphone blocked");
      await expect(voice.error).toContainText("site settings");
      await expect(voice.status).toHaveAttribute("data-status", "failed");
      await expect(voice.retryButton).toBeFocused();
      expect(await microphoneTrackStates(page)).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  test("a transport the server does not allow is refused with its name", async ({ page, voice }) => {
    await voice.open();
    await voice.chooseTransport("wm");
    await voice.startButton.click();
    await expect(voice.error).toHaveAttribute("data-error-code", "realtime_transport_not_allowed");
    await expect(voice.error).toContainText("“wm”");
    // The microphone opened for the offer is released again.
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
  });
});

test.describe("voice errors from the service", () => {
  test("a voice mode the server does not allow is refused with its name", async ({ page, voice }) => {
    // The e2e app allows only `advanced` and `standard` (LWC_REALTIME_VOICE_MODES in playwright.config.ts).
    await voice.open();
    await voice.chooseVoiceMode("wingman");
    await voice.startButton.click();
    await expect(voice.error).toHaveAttribute("data-error-code", "realtime_mode_not_allowed");
    await expect(voice.error).toContainText("“wingman”");
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
  });

  test("an upstream failure shows its status and a retry that works", async ({ page, voice, mock, account }) => {
    // Armed after sign-in, so the model list has already been fetched and only the call meets the fault.
    await mock.addFault({ fault: "server_error", accountId: account.accountId, times: 1 });
    await voice.open();
    await voice.startButton.click();
    await expect(voice.error).toHaveAttribute("data-error-code", "realtime_request_failed");
    await expect(voice.error).toContainText("The voice service failed");
    await expect(voice.error).toContainText("status 500");
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);

    await voice.retryButton.click();
    await expect(voice.status).toHaveAttribute("data-status", /^(listening|speaking)$/, { timeout: 20_000 });
    await expect(voice.error).toBeHidden();
    await voice.hangUpButton.click();
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended", "ended"]);
  });

  test("an answer that is not an SDP is an upstream failure (502)", async ({ voice, mock, account }) => {
    await mock.addFault({ fault: "realtime_non_sdp", accountId: account.accountId, times: 1 });
    await voice.open();
    await voice.startButton.click();
    await expect(voice.error).toHaveAttribute("data-error-code", "realtime_request_failed");
    await expect(voice.error).toContainText("status 502");
  });

  test("signed out since the chat opened: starting says so and offers to sign in", async ({ page, voice }) => {
    const loggedOut = await page.evaluate(async () => (await fetch("/api/provider/logout", { method: "POST" })).status);
    expect(loggedOut).toBeLessThan(300);
    await voice.open();
    await voice.startButton.click();
    await expect(voice.error).toHaveAttribute("data-error-code", "not_authenticated");
    await expect(voice.error.getByRole("button", { name: "Sign in again" })).toBeVisible();
  });

  test("a peer that never connects ends in words, not a spinner", async ({ page, voice, mock, account }) => {
    test.slow();
    await mock.addFault({ fault: "realtime_never_connects", accountId: account.accountId, times: 1 });
    await voice.open();
    await voice.startButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "connecting");
    await expect(voice.error).toHaveAttribute("data-error-code", "connection_failed", { timeout: 30_000 });
    await expect(voice.error).toContainText("Couldn't connect the call");
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
  });
});

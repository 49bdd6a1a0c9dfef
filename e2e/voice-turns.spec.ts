/**
 * A voice call's turns in the chat (issue #19's UI nits), on a phone and a laptop: once the call is
 * over, what was said is in the conversation marked as said by voice, and a voice answer offers no
 * Regenerate (the text model would answer in place of the voice) and a voice question no Edit.
 */
import { expect, test } from "./support/voice-fixtures";
import { saveScreenshot } from "./support/screenshots";

const SCRIPTED_USER_TRANSCRIPT = "Hello, can you hear me?";
const SCRIPTED_ASSISTANT_REPLY = "Hi! This is the mock voice. I can hear you, and you can type to me too.";

for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("a call's turns land in the chat marked as voice, with no Regenerate and no Edit", async ({ page, voice }, testInfo) => {
      await voice.open();
      await voice.startAndWaitForCall();
      await expect(voice.assistantLines.first()).toHaveText(`Assistant: ${SCRIPTED_ASSISTANT_REPLY}`);
      await expect(voice.assistantLines.first()).toHaveAttribute("data-done", "true");
      await voice.hangUpButton.click();
      await expect(voice.status).toHaveAttribute("data-status", "ended");
      await voice.closeButton.click();
      await expect(voice.dialog).toBeHidden();

      const question = page.getByTestId("message-user").filter({ hasText: SCRIPTED_USER_TRANSCRIPT });
      const answer = page.getByTestId("message-assistant").filter({ hasText: SCRIPTED_ASSISTANT_REPLY });
      await expect(question).toHaveAttribute("data-source", "voice");
      await expect(answer).toHaveAttribute("data-source", "voice");
      await expect(question.getByTestId("voice-mark")).toBeVisible();
      await expect(answer.getByTestId("voice-mark")).toBeVisible();
      await expect(page.getByTestId("regenerate-button")).toHaveCount(0);
      await question.hover();
      await expect(question.getByTestId("edit-message-button")).toHaveCount(0);
      await saveScreenshot(page, testInfo, `nits-voice-turns-${viewport.width}`);
    });
  });
}

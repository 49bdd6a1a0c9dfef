import type { MockControl, VoiceCall } from "./support/mock-control";
import { expect, test } from "./support/voice-fixtures";
import { latestPeerConnection, microphoneTrackStates, waitUntilRemoteAudioHeard } from "./support/voice-probe";

// What the mock's voice says in every call (mock-upstream/voice/conversation.ts), and how it answers typed text.
const SCRIPTED_USER_TRANSCRIPT = "Hello, can you hear me?";
const SCRIPTED_ASSISTANT_REPLY = "Hi! This is the mock voice. I can hear you, and you can type to me too.";
const replyTo = (text: string) => `I heard you say: ${text}`;
// Long enough that the spoken reply lasts a few seconds, time to measure it.
const TYPED = "what colour is the sky over the sea on a clear summer morning";

async function onlyCall(mock: MockControl, accountId: string): Promise<VoiceCall | undefined> {
  const calls = await mock.voiceCalls(accountId);
  return calls.length === 1 ? calls[0] : undefined;
}

test.describe("voice call in Chromium over real WebRTC", () => {
  test("connects, hears the assistant, shows both transcripts, answers typed text, mutes and hangs up", async ({ page, voice, mock, account }) => {
    await voice.open();
    await voice.startAndWaitForCall();

    // A real peer connection, without STUN servers, connected to the mock's peer.
    await expect.poll(() => latestPeerConnection(page)).toEqual({ state: "connected", iceServers: 0 });
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("connected");

    // The scripted turn: the user's transcript, then the assistant's spoken reply and its transcript.
    await expect(voice.userLines.first()).toHaveText(`You: ${SCRIPTED_USER_TRANSCRIPT}`);
    await expect(voice.assistantLines.first()).toContainText("Hi! This is the mock voice.");

    // Typed text gets a spoken reply with its transcript; the assistant audio is really there (WebAudio).
    await voice.say(TYPED);
    // The reply's first transcript words arrive as its audio starts; it talks for about three seconds.
    await expect(voice.assistantLines.last()).toContainText("I heard you say");
    await expect(voice.status).toHaveAttribute("data-status", "speaking");
    await expect.poll(() => voice.level(voice.assistantLevel)).toBeGreaterThan(0);
    const audio = await waitUntilRemoteAudioHeard(page);
    expect(audio.peak).toBeGreaterThan(0.1);
    expect(audio.rms).toBeGreaterThan(0.02);
    await expect(voice.assistantLines.last()).toHaveText(`Assistant: ${replyTo(TYPED)}`);
    await expect(voice.assistantLines.last()).toHaveAttribute("data-done", "true");

    // The fake microphone beeps: the mock hears it, then hears nothing once muted.
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.inboundLevel ?? 0).toBeGreaterThan(0.01);
    await voice.muteButton.click();
    await expect(voice.muteButton).toHaveAttribute("aria-pressed", "true");
    await expect(voice.status).toHaveAttribute("data-status", /^(muted|speaking)$/);
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.inboundLevel, { timeout: 5_000 }).toBe(0);
    const packetsWhenMuted = (await onlyCall(mock, account.accountId))!.inboundPackets;
    await voice.muteButton.click();
    await expect(voice.muteButton).toHaveAttribute("aria-pressed", "false");
    await expect.poll(async () => (await onlyCall(mock, account.accountId))!.inboundPackets).toBeGreaterThan(packetsWhenMuted);

    // Hang up: every microphone track ends, the page says so, and the mock sees the call end.
    await voice.hangUpButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("closed");
    await expect.poll(() => latestPeerConnection(page)).toMatchObject({ state: "closed" });

    // The transcript stays in the chat's history.
    await voice.closeButton.click();
    await expect(voice.dialog).toBeHidden();
    await expect(page.getByTestId("message-user").filter({ hasText: SCRIPTED_USER_TRANSCRIPT })).toHaveCount(1);
    await expect(page.getByTestId("message-user").filter({ hasText: TYPED })).toHaveCount(1);
    await expect(page.getByTestId("message-assistant").filter({ hasText: SCRIPTED_ASSISTANT_REPLY })).toHaveCount(1);
    await expect(page.getByTestId("message-assistant").filter({ hasText: replyTo(TYPED) })).toHaveCount(1);
    await expect(voice.openButton).toBeFocused();
  });

  test("leaving the page releases the microphone and ends the call", async ({ page, voice, mock, account }) => {
    await voice.open();
    await voice.startAndWaitForCall();
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("connected");
    await page.goto("about:blank");
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("closed");
  });
});

test("Escape closes the voice dialog mid-call and releases the microphone", async ({ page, voice, mock, account }) => {
  await voice.open();
  await voice.startAndWaitForCall();
  await page.keyboard.press("Escape");
  await expect(voice.dialog).toBeHidden();
  await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
  await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("closed");
});

test("the ChatGPT web transport (vp) connects, speaks its wrapped events and answers typed text", async ({ page, voice, mock, account }) => {
  await voice.open();
  await voice.chooseTransport("vp");
  await voice.startAndWaitForCall();
  await expect.poll(async () => (await onlyCall(mock, account.accountId))?.transport).toBe("vp");
  await expect(voice.assistantLines.first()).toContainText("Hi! This is the mock voice.");
  await voice.say("over the web transport");
  await expect(voice.assistantLines.last()).toHaveText(`Assistant: ${replyTo("over the web transport")}`);
  const call = await onlyCall(mock, account.accountId);
  expect(call?.dataChannelMessages).toContainEqual({ type: "relay_message", text: "over the web transport" });
  await voice.hangUpButton.click();
  await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
  await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("closed");
});

import os from "node:os";
import type { Page } from "@playwright/test";
import { VoicePage } from "./pages/voice-page";
import type { MockControl, VoiceCall } from "./support/mock-control";
import { signInThroughControlApi } from "./support/sign-in";
import { expect, test } from "./support/voice-fixtures";
import { installVoiceProbe, latestPeerConnection, microphoneTrackStates, waitUntilRemoteAudioHeard } from "./support/voice-probe";

// A normal desktop Chrome has no --allow-loopback-in-peer-connection. It then offers its interface
// addresses and checks from them to the mock peer's 127.0.0.1 port, which is what `npm run demo`
// meets. That needs an address other than loopback; the mock peer's socket is IPv4.
const hostIpv4Addresses = Object.values(os.networkInterfaces())
  .flat()
  .filter((entry) => entry?.family === "IPv4" && !entry.internal)
  .map((entry) => entry!.address);

// Long enough that the spoken reply lasts a few seconds, time to measure it.
const TYPED = "tell me a long story about the lighthouse keeper and the quiet grey sea";

async function onlyCall(mock: MockControl, accountId: string): Promise<(VoiceCall & { browserAddress?: unknown }) | undefined> {
  const calls = await mock.voiceCalls(accountId);
  return calls.length === 1 ? calls[0] : undefined;
}

/** The addresses in the `a=candidate` lines of the page's own offer. */
async function offeredAddresses(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const probe = (window as unknown as { __voiceProbe: { peerConnections: RTCPeerConnection[] } }).__voiceProbe;
    const sdp = probe.peerConnections.at(-1)?.localDescription?.sdp ?? "";
    return sdp
      .split(/\r?\n/)
      .filter((line) => line.startsWith("a=candidate:"))
      .map((line) => line.split(" ")[4] ?? "");
  });
}

test("a call connects and speaks in a Chromium started without the loopback switch", async ({ playwright, mock, account }, testInfo) => {
  test.skip(hostIpv4Addresses.length === 0, "this machine has no IPv4 address besides loopback, so a browser without the loopback switch cannot gather a candidate");

  const launchOptions = testInfo.project.use.launchOptions ?? {};
  const args = (launchOptions.args ?? []).filter((arg) => arg !== "--allow-loopback-in-peer-connection");
  expect(args).toContain("--use-fake-ui-for-media-stream");
  const browser = await playwright.chromium.launch({ ...launchOptions, args });
  try {
    const page = await browser.newPage({ baseURL: testInfo.project.use.baseURL });
    await installVoiceProbe(page);
    await signInThroughControlApi(page, mock, account);
    const voice = new VoicePage(page);
    await voice.open();
    await voice.startAndWaitForCall();

    // The browser offered its interface addresses, not loopback, yet the call is up.
    const offered = await offeredAddresses(page);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered).not.toContain("127.0.0.1");
    expect(offered).not.toContain("::1");
    await expect.poll(() => latestPeerConnection(page)).toEqual({ state: "connected", iceServers: 0 });
    const call = await mock.waitForVoiceCall(account.accountId, (c) => c.state === "connected");
    // The mock's media goes to one of this machine's own addresses, never off the host.
    expect(hostIpv4Addresses).toContain((call as { browserAddress?: unknown }).browserAddress);

    // The assistant is heard (WebAudio in the page), and the mock hears the fake microphone.
    // "speaking" alone may still be the greeting's tail: the reply's first words mark its audio.
    await voice.say(TYPED);
    await expect(voice.assistantLines.last()).toContainText("I heard you say");
    await expect(voice.status).toHaveAttribute("data-status", "speaking");
    const audio = await waitUntilRemoteAudioHeard(page);
    expect(audio.peak).toBeGreaterThan(0.1);
    expect(audio.rms).toBeGreaterThan(0.02);
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.inboundLevel ?? 0).toBeGreaterThan(0.01);

    await voice.hangUpButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
    await expect.poll(() => microphoneTrackStates(page)).toEqual(["ended"]);
    await expect.poll(async () => (await onlyCall(mock, account.accountId))?.state).toBe("closed");
  } finally {
    await browser.close();
  }
});

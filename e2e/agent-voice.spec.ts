/**
 * Agent voice in Chromium with the REAL codex executable (started by the app for each call) against
 * the mock: the voice page in agent mode shows the handoff and tool events live, asks for approval of
 * save_note (approve and deny), shows the saved note, and hanging up ends the call's process.
 * Skipped when the app runs without LWC_CODEX_COMMAND (the codex executable is not installed).
 */
import { readdirSync, readFileSync } from "node:fs";
import { MOCK_UPSTREAM_URL } from "./support/servers";
import { expect, test } from "./support/voice-fixtures";
import { CODEX_FOR_E2E } from "./support/codex";
import { saveScreenshot } from "./support/screenshots";

async function mockPost(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${MOCK_UPSTREAM_URL}/__mock${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

/**
 * The `codex app-server` instances our bridge runs, one per private home (read from /proc): each
 * instance is several processes (bwrap, the sandbox's PID 1, the codex launcher, the native binary),
 * all with that home's CODEX_HOME in their environment.
 */
function bridgeInstances(): string[] {
  const homes = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const home = /(?:^|\0)CODEX_HOME=([^\0]*lwc-codex-[^\0]*)/.exec(readFileSync(`/proc/${entry}/environ`, "utf8"))?.[1];
      if (cmdline.includes("app-server") && home) homes.add(home);
    } catch {
      // Ended while we looked, or not ours to read.
    }
  }
  return [...homes];
}

test.describe("agent voice (real codex app-server)", () => {
  test.skip(!CODEX_FOR_E2E, "the codex executable is not installed (bash scripts/ensure-codex.sh)");
  // One call at a time: the mock's scripted tool calls are shared by every call.
  test.describe.configure({ mode: "serial" });

  test("handoff and tools live, approve a note, see it saved; hanging up ends the call's process", async ({ page, voice }, testInfo) => {
    await voice.open();
    await page.getByTestId("voice-agent-mode").check();
    await expect(page.getByText("No notes yet.")).toBeVisible();
    const before = new Set(bridgeInstances());
    await voice.startAndWaitForCall();
    const during = bridgeInstances().filter((home) => !before.has(home));
    expect(during.length).toBeGreaterThan(0);

    await mockPost("/codex/tool-calls", { calls: [{ name: "get_current_time", arguments: {} }, { name: "save_note", arguments: { text: "buy oat milk" } }] });
    await mockPost("/codex/handoff", { transcript: "What time is it? Save a note: buy oat milk." });

    const activity = page.getByTestId("agent-activity");
    await expect(activity.locator('[data-event="handoff"]')).toContainText("What time is it? Save a note: buy oat milk.");
    await expect(activity.locator('[data-event="tool.completed"]').first()).toContainText("get_current_time: done");
    const confirmation = page.getByTestId("agent-confirmation");
    await expect(confirmation).toBeVisible({ timeout: 20_000 });
    await expect(confirmation.getByTestId("agent-review-text")).toHaveText("buy oat milk");
    await expect(page.getByText("No notes yet.")).toBeVisible();
    await saveScreenshot(page, testInfo, "agent-voice-confirmation");

    await confirmation.getByTestId("agent-approve").click();
    await expect(confirmation).toBeHidden();
    await expect(page.getByTestId("agent-notes")).toContainText("buy oat milk");
    await expect(activity.locator('[data-event="tool.completed"]').last()).toContainText("save_note: done");

    await voice.hangUpButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
    // The call's instance ends; at most the one spare (signed-out, initialised) instance remains.
    await expect.poll(() => during.filter((home) => bridgeInstances().includes(home)).length, { timeout: 15_000 }).toBeLessThanOrEqual(1);
    await expect.poll(() => bridgeInstances().filter((home) => !before.has(home)).length, { timeout: 15_000 }).toBeLessThanOrEqual(1);
  });

  test("a denied note is not saved", async ({ page, voice }) => {
    await voice.open();
    await page.getByTestId("voice-agent-mode").check();
    await voice.startAndWaitForCall();
    await mockPost("/codex/tool-calls", { calls: [{ name: "save_note", arguments: { text: "never keep this" } }] });
    await mockPost("/codex/handoff", { transcript: "Save a note: never keep this." });
    const confirmation = page.getByTestId("agent-confirmation");
    await expect(confirmation.getByTestId("agent-review-text")).toHaveText("never keep this", { timeout: 20_000 });
    await confirmation.getByTestId("agent-deny").click();
    await expect(confirmation).toBeHidden();
    await expect(page.getByTestId("agent-activity").locator('[data-event="tool.completed"]').last()).toContainText("denied");
    await expect(page.getByText("No notes yet.")).toBeVisible();
    await voice.hangUpButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
  });

  test("in the chat, the agent's actions come after the request that caused them, even when its words arrived after them", async ({ page, voice }) => {
    await voice.open();
    await voice.agentModeCheckbox.check();
    await voice.startAndWaitForCall();
    await expect(voice.assistantLines.first()).toHaveText(/you can type to me too\.$/);
    // The person asks; the service transcribes the request only after the agent has acted on it.
    await mockPost("/codex/tool-calls", { calls: [{ name: "get_current_time", arguments: {} }] });
    await mockPost("/codex/handoff", { transcript: "What time is it?", transcriptHeld: true });
    await expect(page.getByTestId("agent-activity").locator('[data-event="tool.completed"]').first()).toContainText("get_current_time: done", { timeout: 20_000 });
    await mockPost("/codex/handoff/transcript", {});
    await expect(voice.userLines.last()).toContainText("What time is it?");
    await voice.hangUpButton.click();
    await expect(voice.status).toHaveAttribute("data-status", "ended");
    await voice.closeButton.click();
    await expect(voice.dialog).toBeHidden();

    const turns = page.locator('[data-testid="message-user"], [data-testid="message-assistant"], [data-testid="agent-action"]');
    const texts = await turns.allTextContents();
    const request = texts.findIndex((text) => text.includes("What time is it?"));
    const action = texts.findIndex((text) => text.includes("get_current_time: done"));
    expect(request).toBeGreaterThanOrEqual(0);
    expect(action).toBe(request + 1);
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    test.describe(`at ${viewport.width} px`, () => {
      test.use({ viewport });

      test("the transcript keeps its room beside the agent's panel, and the agent's actions are recorded in the chat", async ({ page, voice }, testInfo) => {
        await voice.open();
        await voice.agentModeCheckbox.check();
        await voice.startAndWaitForCall();
        // Two tool calls: the panel fills with the activity and a confirmation (at 1280 × 800 the old
        // layout squeezed the transcript to about 45 px here).
        await mockPost("/codex/tool-calls", { calls: [{ name: "get_current_time", arguments: {} }, { name: "save_note", arguments: { text: "water the ferns" } }] });
        await mockPost("/codex/handoff", { transcript: "What time is it? Save a note: water the ferns." });
        const confirmation = page.getByTestId("agent-confirmation");
        await expect(confirmation.getByTestId("agent-review-text")).toHaveText("water the ferns", { timeout: 20_000 });
        await expect(page.getByTestId("agent-activity").locator('[data-event="tool.completed"]').first()).toContainText("get_current_time: done");
        await expect(voice.assistantLines.first()).toContainText("Hi! This is the mock voice.");
        const transcriptHeight = (await voice.transcript.boundingBox())?.height ?? 0;
        await saveScreenshot(page, testInfo, `nits-agent-mode-${viewport.width}`);
        expect(transcriptHeight).toBeGreaterThanOrEqual(128);

        await confirmation.getByTestId("agent-approve").click();
        await expect(page.getByTestId("agent-activity").locator('[data-event="tool.completed"]').last()).toContainText("save_note: done");
        await voice.hangUpButton.click();
        await expect(voice.status).toHaveAttribute("data-status", "ended");
        await voice.closeButton.click();
        await expect(voice.dialog).toBeHidden();

        const actions = page.getByTestId("agent-action");
        await expect(actions).toHaveText([/get_current_time: done/, /save_note \(text: water the ferns\): done/]);
        for (const action of await actions.all()) await expect(action).toHaveAttribute("data-source", "voice");
        await expect(page.getByTestId("regenerate-button")).toHaveCount(0);
        await saveScreenshot(page, testInfo, `nits-agent-actions-${viewport.width}`);
      });
    });
  }
});

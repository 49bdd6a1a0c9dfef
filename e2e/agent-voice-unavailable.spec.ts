/**
 * Agent voice fails closed in the browser too: an app whose agent sandbox cannot start (here: bwrap
 * is told to show a path that does not exist, so it cannot build the sandbox) offers no agent mode;
 * the voice dialog says in words that it is unavailable, and /api/health reports it. The real codex
 * executable is configured (skipped when it is not installed), but nothing is ever spawned.
 */
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { VoicePage } from "./pages/voice-page";
import { CODEX_FOR_E2E } from "./support/codex";
import { startExtraApp } from "./support/extra-app";
import { expect, test } from "./fixtures";
import type { NextServer } from "../test-support/next-server";

let app: NextServer | undefined;

test.describe.configure({ mode: "serial" });
test.skip(!CODEX_FOR_E2E, "the codex executable is not installed (bash scripts/ensure-codex.sh)");
test.beforeAll(async () => {
  app = await startExtraApp({ LWC_CODEX_COMMAND: CODEX_FOR_E2E!, LWC_AGENT_SANDBOX_READONLY_PATHS: "/nonexistent-lwc-e2e-sandbox-path" });
});
test.afterAll(async () => {
  await app?.stop();
});

test("the voice dialog says agent mode is unavailable and offers no switch; health reports it", async ({ page, mock, account }) => {
  await page.goto(app!.url);
  const userCode = await new SignInPage(page).startSignIn();
  await mock.approve(userCode, account);
  await new ChatPage(page).expectSignedInAs(account.email);

  const voice = new VoicePage(page);
  await voice.open();
  await expect(page.getByTestId("voice-agent-unavailable")).toContainText("Agent voice is unavailable on this server");
  await expect(page.getByTestId("voice-agent-mode")).toHaveCount(0);
  // Plain voice is still offered.
  await expect(voice.startButton).toBeVisible();

  const health = await page.request.get(`${app!.url}/api/health`);
  expect(await health.json()).toMatchObject({ status: "ok", agentVoice: "unavailable" });
  expect(app!.output()).toContain("agent voice is unavailable: its bwrap sandbox cannot start");
});

import { defineConfig } from "@playwright/test";
import {
  APP_PORT,
  APP_URL,
  E2E_MAX_REQUEST_BYTES,
  E2E_POLL_INTERVAL_SECONDS,
  E2E_RATE_LIMIT_PER_MINUTE,
  E2E_SESSION_SECRET,
  E2E_STREAM_CHUNK_DELAY_MS,
  MOCK_UPSTREAM_PORT,
  MOCK_UPSTREAM_URL,
} from "./e2e/support/servers";
import { CODEX_FOR_E2E } from "./e2e/support/codex";
import { e2eDataDir } from "./e2e/support/data-dir";

const inCi = Boolean(process.env.CI);

// Debian's Chromium (apt-get install chromium); `npx playwright install` cannot download here.
const launchOptions = {
  executablePath: process.env.E2E_CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

// The voice project adds real WebRTC on loopback: a fake microphone granted without a prompt (this
// also keeps Chromium from hiding host addresses behind mDNS), 127.0.0.1 candidates, and no DNS.
const voiceLaunchOptions = {
  ...launchOptions,
  args: [
    ...launchOptions.args,
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
  ],
};
const voiceSpecs = /voice[^/]*\.spec\.ts$/;
const voiceScreenshotSpecs = /voice-screenshots\.spec\.ts$/;

export default defineConfig({
  testDir: "./e2e",
  testMatch: /.*\.spec\.ts$/,
  outputDir: "test-results",
  fullyParallel: true,
  forbidOnly: inCi,
  retries: 0,
  // Two cores: two browsers plus next start plus the mock is what the machine carries comfortably.
  workers: 2,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { outputFolder: "playwright-report", open: "never" }]],
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: APP_URL,
    viewport: { width: 1280, height: 800 },
    launchOptions,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    video: "off",
  },
  projects: [
    { name: "desktop", testIgnore: [/screenshots\.spec\.ts$/, voiceSpecs] },
    { name: "screenshots", testMatch: /screenshots\.spec\.ts$/, testIgnore: voiceScreenshotSpecs },
    { name: "voice", testMatch: voiceSpecs, testIgnore: voiceScreenshotSpecs, use: { launchOptions: voiceLaunchOptions } },
    { name: "voice-screenshots", testMatch: voiceScreenshotSpecs, use: { launchOptions: voiceLaunchOptions } },
  ],
  webServer: [
    {
      name: "mock-upstream",
      command: "npx tsx mock-upstream/main.ts",
      url: `${MOCK_UPSTREAM_URL}/__mock/health`,
      env: {
        MOCK_UPSTREAM_PORT: String(MOCK_UPSTREAM_PORT),
        MOCK_UPSTREAM_HOST: "127.0.0.1",
        MOCK_STREAM_CHUNK_DELAY_MS: String(E2E_STREAM_CHUNK_DELAY_MS),
        // From the first request on, not only after global setup: every sign-in polls at this pace.
        MOCK_POLL_INTERVAL_SECONDS: String(E2E_POLL_INTERVAL_SECONDS),
      },
      reuseExistingServer: !inCi,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      name: "app",
      // `node .../next start` rather than `npx next start`: killing the npx wrapper would leave next-server running.
      command: `node node_modules/next/dist/bin/next start -p ${APP_PORT} -H 127.0.0.1`,
      url: `${APP_URL}/api/health`,
      env: {
        LWC_ISSUER_URL: MOCK_UPSTREAM_URL,
        LWC_CODEX_BASE_URL: `${MOCK_UPSTREAM_URL}/backend-api/codex`,
        LWC_SECRET: E2E_SESSION_SECRET,
        // The chats this run's server keeps: a folder of its own, not the repository's .data.
        LWC_DATA_DIR: e2eDataDir(),
        // One instance on the in-memory store, on purpose: /api/health then says `ok`, not `degraded`.
        LWC_ALLOW_MEMORY_STORE: "1",
        LWC_RATE_LIMIT_PER_MINUTE: String(E2E_RATE_LIMIT_PER_MINUTE),
        LWC_MAX_REQUEST_BYTES: String(E2E_MAX_REQUEST_BYTES),
        // Every test signs in from 127.0.0.1; keep the login limiter out of the way of a full run.
        LWC_LOGIN_RATE_LIMIT_PER_MINUTE: "1000",
        LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE: "1000",
        // One voice mode and one transport (wm) left out, so the voice page's refusals can be tested.
        LWC_REALTIME_VOICE_MODES: "advanced,standard",
        LWC_REALTIME_TRANSPORTS: "codex,vp,vps",
        LWC_CHATGPT_URL: MOCK_UPSTREAM_URL,
        // Agent voice with the real codex executable, when installed (e2e/agent-voice.spec.ts).
        ...(CODEX_FOR_E2E ? { LWC_CODEX_COMMAND: CODEX_FOR_E2E } : {}),
      },
      reuseExistingServer: !inCi,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});

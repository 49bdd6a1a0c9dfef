import { defineConfig } from "@playwright/test";
import {
  APP_PORT,
  APP_URL,
  E2E_MAX_REQUEST_BYTES,
  E2E_RATE_LIMIT_PER_MINUTE,
  E2E_SESSION_SECRET,
  E2E_STREAM_CHUNK_DELAY_MS,
  MOCK_UPSTREAM_PORT,
  MOCK_UPSTREAM_URL,
} from "./e2e/support/servers";

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
    { name: "desktop", testIgnore: /screenshots\.spec\.ts$/ },
    { name: "screenshots", testMatch: /screenshots\.spec\.ts$/ },
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
        LWC_RATE_LIMIT_PER_MINUTE: String(E2E_RATE_LIMIT_PER_MINUTE),
        LWC_MAX_REQUEST_BYTES: String(E2E_MAX_REQUEST_BYTES),
        // Every test signs in from 127.0.0.1; keep the login limiter out of the way of a full run.
        LWC_LOGIN_RATE_LIMIT_PER_MINUTE: "1000",
        LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE: "1000",
      },
      reuseExistingServer: !inCi,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});

import { defineConfig } from "@playwright/test";
import base from "./playwright.config";
import { E2E_POLL_INTERVAL_SECONDS, E2E_STREAM_CHUNK_DELAY_MS, MOCK_UPSTREAM_PORT, MOCK_UPSTREAM_URL, PAIR_URL } from "./e2e/support/servers";

// The sync and settings specs again, against two `next start` instances sharing a throwaway
// Postgres (and a Redis for the sessions) behind a round-robin proxy: every request of a page may
// reach either instance (e2e/support/history-pair.ts). `npm run test:e2e` runs it after the main suite.
process.env.E2E_HISTORY_PAIR = "1";

export default defineConfig({
  ...base,
  testMatch: /history-(sync|settings)\.spec\.ts$/,
  use: { ...base.use, baseURL: PAIR_URL },
  projects: [{ name: "history-pair" }],
  webServer: [
    {
      name: "mock-upstream",
      command: "npx tsx mock-upstream/main.ts",
      url: `${MOCK_UPSTREAM_URL}/__mock/health`,
      env: {
        MOCK_UPSTREAM_PORT: String(MOCK_UPSTREAM_PORT),
        MOCK_UPSTREAM_HOST: "127.0.0.1",
        MOCK_STREAM_CHUNK_DELAY_MS: String(E2E_STREAM_CHUNK_DELAY_MS),
        MOCK_POLL_INTERVAL_SECONDS: String(E2E_POLL_INTERVAL_SECONDS),
      },
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      name: "history-pair",
      command: "node node_modules/tsx/dist/cli.mjs e2e/support/history-pair.ts",
      url: `${PAIR_URL}/api/health`,
      // Its Postgres, Redis and app instances are stopped by the script itself, not killed with it.
      gracefulShutdown: { signal: "SIGTERM", timeout: 30_000 },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: "pipe",
      stderr: "pipe",
    },
  ],
});

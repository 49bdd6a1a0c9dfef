/**
 * Where the e2e servers listen and how they are configured. Shared by playwright.config.ts
 * (which starts them) and the specs (which talk to them).
 */
/** Overridable so two checkouts can run the suite side by side (E2E_MOCK_UPSTREAM_PORT, E2E_APP_PORT). */
export const MOCK_UPSTREAM_PORT = Number(process.env.E2E_MOCK_UPSTREAM_PORT ?? 4110);
export const APP_PORT = Number(process.env.E2E_APP_PORT ?? 3110);
export const MOCK_UPSTREAM_URL = `http://127.0.0.1:${MOCK_UPSTREAM_PORT}`;
export const APP_URL = `http://127.0.0.1:${APP_PORT}`;

/**
 * The two-instance run (playwright.history-pair.config.ts): the round-robin proxy in front of two
 * `next start` sharing a Postgres listens here (E2E_PAIR_PORT; default the app's port + 1).
 */
export const PAIR_PORT = Number(process.env.E2E_PAIR_PORT ?? APP_PORT + 1);
export const PAIR_URL = `http://127.0.0.1:${PAIR_PORT}`;

/** The app's per-session limit for POST /responses in this suite: small so a test can reach it. */
export const E2E_RATE_LIMIT_PER_MINUTE = 5;

/** Slow enough that a streaming reply is observable, fast enough to keep the suite quick. */
export const E2E_STREAM_CHUNK_DELAY_MS = 40;

/** The mock announces this poll interval with each device code so sign-in completes within a second or two. */
export const E2E_POLL_INTERVAL_SECONDS = 1;

/** Test-only secret; never used outside this suite. */
export const E2E_SESSION_SECRET = "e2e-only-session-secret-0123456789abcdef";

/**
 * The app's body limit for POST /responses in this suite: smaller than the default (4000000) so a
 * test can exceed it with a paste the browser handles quickly, still roomy for the small test images.
 */
export const E2E_MAX_REQUEST_BYTES = 400_000;

import { MockControl } from "./support/mock-control";
import { E2E_POLL_INTERVAL_SECONDS, E2E_STREAM_CHUNK_DELAY_MS } from "./support/servers";

/**
 * Runs once, after both web servers are up and before any test: a clean mock (in case a local
 * run reused a running one) and the timings the suite relies on.
 */
export default async function globalSetup(): Promise<void> {
  const mock = new MockControl();
  await mock.reset();
  await mock.setOptions({
    pollIntervalSeconds: E2E_POLL_INTERVAL_SECONDS,
    streamChunkDelayMs: E2E_STREAM_CHUNK_DELAY_MS,
  });
}

/**
 * `npm run bench:floor` (also part of `npm run bench`): the proxy's streamed reply against the
 * framework's floor, a bare Next.js route that only forwards to the mock, in the benchmark-only app
 * scripts/bench/floor-app/ (scripts/bench/floor-comparison.ts). Prints server CPU per reply and
 * time to first byte, both with their ratio to the floor and the target. Run it three times and take
 * the median.
 */
import { startNextServer } from "../../test-support/next-server";
import { ensureProductionBuild } from "./build";
import { compareWithFloor, floorRows, loadNote } from "./floor-comparison";
import { startFloorServer } from "./floor-server";
import { mockControl, startMockProcess } from "./mock-process";
import { signInDirectly, signInThroughApp } from "./sign-in";
import { formatTable } from "./stats";

const SECRET = "benchmark-secret-0123456789abcdefghijklmnop";

async function main(): Promise<void> {
  const distDir = ensureProductionBuild();
  const mock = await startMockProcess();
  const cleanups: (() => Promise<unknown>)[] = [async () => mock.child.kill("SIGTERM")];
  try {
    const app = await startNextServer({
      LWC_ISSUER_URL: mock.url,
      LWC_CODEX_BASE_URL: `${mock.url}/backend-api/codex`,
      LWC_SECRET: SECRET,
      LWC_RATE_LIMIT_PER_MINUTE: "1000000",
    });
    cleanups.push(() => app.stop());
    const floorApp = await startFloorServer(`${mock.url}/backend-api/codex`);
    cleanups.push(() => floorApp.stop());
    await mockControl(mock.url, "/__mock/options", { streamChunkDelayMs: 0, pollIntervalSeconds: 1 });
    const cookie = await signInThroughApp(app.url, mock.url);
    const direct = await signInDirectly(mock.url);
    const loadBefore = loadNote();
    const result = await compareWithFloor(app, floorApp, mock.url, cookie, direct);
    console.log(
      `\nThe proxy against the framework's floor (build ${distDir}, the floor app's .next-bench-floor; ` +
        `3 runs of ${result.rounds} rounds of ${result.block} replies each, ` +
        `taking turns; ${loadBefore} before, ${loadNote()} after)\n`,
    );
    console.log(formatTable(floorRows(result)));
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

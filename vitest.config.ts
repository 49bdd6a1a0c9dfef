import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      "@/": root,
      // `server-only` throws outside a React Server bundle; under vitest it is a no-op marker.
      "server-only": `${root}test-support/server-only-stub.ts`,
    },
  },
  test: {
    environment: "node",
    // Real servers (mock upstream, redis, next start) take a moment; no test sleeps, they await events.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "mock-upstream/**/*.test.ts", "tests/integration/**/*.test.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "multi",
          include: ["tests/multi/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          // The real `codex` executable (installed by scripts/ensure-codex.sh) against the mock.
          name: "codex",
          include: ["tests/codex-real/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // The image the Dockerfile builds, run with podman: only through `npm run test:container`
          // (scripts/container/test.sh builds the image first and removes every container after).
          name: "container",
          include: ["tests/container/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

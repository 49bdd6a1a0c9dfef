/**
 * The two-instance run of the sync spec (playwright.history-pair.config.ts starts this as its web
 * server): a throwaway Postgres, a Redis (through the Upstash REST bridge) for the sessions, two
 * `next start` instances sharing both, and a round-robin proxy in front at PAIR_URL, so every
 * request of a page may reach either instance. Everything is stopped, by its pid, on SIGTERM or
 * SIGINT (Playwright's graceful shutdown), and on any failure to start.
 */
import { startNextServer, type NextServer } from "../../test-support/next-server";
import { startPostgresServer, type PostgresServer } from "../../test-support/postgres-server";
import { startRedisServer, type RedisServer } from "../../test-support/redis-server";
import { startRoundRobinProxy, type RoundRobinProxy } from "../../test-support/round-robin-proxy";
import { startUpstashBridge, type UpstashBridge } from "../../test-support/upstash-bridge";
import { E2E_MAX_REQUEST_BYTES, E2E_RATE_LIMIT_PER_MINUTE, E2E_SESSION_SECRET, MOCK_UPSTREAM_URL, PAIR_PORT } from "./servers";

const running: { postgres?: PostgresServer; redis?: RedisServer; bridge?: UpstashBridge; apps: NextServer[]; proxy?: RoundRobinProxy } = { apps: [] };

async function stopAll(): Promise<void> {
  await running.proxy?.close();
  await Promise.allSettled(running.apps.map((app) => app.stop()));
  await Promise.allSettled([running.bridge?.close(), running.redis?.dispose(), running.postgres?.stop()]);
}

async function main(): Promise<void> {
  running.postgres = await startPostgresServer();
  const databaseUrl = await running.postgres.createDatabase("history_e2e_pair");
  running.redis = await startRedisServer();
  const token = "e2e-pair-bridge-token";
  running.bridge = await startUpstashBridge({ redisPort: running.redis.port, token });
  const env = {
    LWC_ISSUER_URL: MOCK_UPSTREAM_URL,
    LWC_CODEX_BASE_URL: `${MOCK_UPSTREAM_URL}/backend-api/codex`,
    LWC_SECRET: E2E_SESSION_SECRET,
    UPSTASH_REDIS_REST_URL: running.bridge.url,
    UPSTASH_REDIS_REST_TOKEN: token,
    DATABASE_URL: databaseUrl,
    LWC_RATE_LIMIT_PER_MINUTE: String(E2E_RATE_LIMIT_PER_MINUTE),
    LWC_MAX_REQUEST_BYTES: String(E2E_MAX_REQUEST_BYTES),
    LWC_LOGIN_RATE_LIMIT_PER_MINUTE: "1000",
    LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE: "1000",
  };
  // One after the other: both at once would race to apply the migrations (safe, but slower here).
  running.apps.push(await startNextServer(env));
  running.apps.push(await startNextServer(env));
  running.proxy = await startRoundRobinProxy(
    running.apps.map((app) => app.url),
    PAIR_PORT,
  );
  console.log(`history pair: ${running.proxy.url} → ${running.apps.map((app) => app.url).join(", ")} (Postgres on port ${running.postgres.port})`);
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void stopAll().finally(() => process.exit(0));
  });
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  await stopAll();
  process.exit(1);
});

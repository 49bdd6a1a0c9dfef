import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { startNextServer, type NextServer } from "@/test-support/next-server";
import { startRedisServer } from "@/test-support/redis-server";
import { startUpstashBridge } from "@/test-support/upstash-bridge";

export const TEST_SECRET = "multi-instance-test-secret-0123456789abcdef";

export interface Cluster {
  mock: MockUpstream;
  redis: Awaited<ReturnType<typeof startRedisServer>>;
  bridge: Awaited<ReturnType<typeof startUpstashBridge>>;
  a: NextServer;
  b: NextServer;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Two production instances of the app sharing one real Redis (through the Upstash REST bridge) and one mock provider. */
export async function startCluster(extraEnv: Record<string, string> = {}, options: { mock?: MockUpstream } = {}): Promise<Cluster> {
  // A mock the caller gives is the caller's to close.
  const mock = options.mock ?? (await startMockUpstream({ streamChunkDelayMs: 2 }));
  const closeMock = () => (options.mock ? Promise.resolve() : mock.close());
  // Persistent, like a production Redis: a restart keeps the sessions.
  const redis = await startRedisServer({ persistent: true });
  const token = "bridge-token-for-tests";
  const bridge = await startUpstashBridge({ redisPort: redis.port, token });
  const env: Record<string, string> = {
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    LWC_SECRET: TEST_SECRET,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: token,
    // Sessions and limits are under test here unless a database is given (history-instances.test.ts):
    // two embedded databases starting would only load the machine.
    ...(extraEnv.DATABASE_URL ? {} : { LWC_CHAT_HISTORY: "browser" }),
    ...extraEnv,
  };
  const started = await Promise.allSettled([startNextServer(env), startNextServer(env)]);
  if (started.some((result) => result.status === "rejected")) {
    // Nothing of a cluster that could not start stays running: the instances that did, the bridge, Redis, the mock.
    await Promise.allSettled(started.map((result) => (result.status === "fulfilled" ? result.value.stop() : undefined)));
    await Promise.allSettled([bridge.close(), redis.dispose(), closeMock()]);
    throw (started.find((result) => result.status === "rejected") as PromiseRejectedResult).reason;
  }
  const [a, b] = started.map((result) => (result as PromiseFulfilledResult<NextServer>).value) as [NextServer, NextServer];
  return {
    mock,
    redis,
    bridge,
    a,
    b,
    env,
    stop: async () => {
      await Promise.allSettled([a.stop(), b.stop()]);
      await Promise.allSettled([bridge.close(), redis.dispose(), closeMock()]);
    },
  };
}

export function refreshRequests(mock: MockUpstream): number {
  return mock
    .requests({ path: "/oauth/token" })
    .filter((r) => (r.body as { grant_type?: string } | null)?.grant_type === "refresh_token").length;
}

/**
 * `npm run mock-upstream`: run the mock identity provider + model backend for the demo and e2e.
 * Env: MOCK_UPSTREAM_PORT (default 4010), MOCK_UPSTREAM_HOST (default 127.0.0.1),
 * MOCK_ACCESS_TOKEN_TTL_SECONDS (default 3600), MOCK_STREAM_CHUNK_DELAY_MS (default 25),
 * MOCK_POLL_INTERVAL_SECONDS (the device-code poll interval it announces, default 5).
 */
import { z } from "zod";
import { DEFAULT_ACCOUNT, startMockUpstream } from "./server";

const envSchema = z.object({
  MOCK_UPSTREAM_PORT: z.coerce.number().int().min(0).max(65_535).default(4010),
  MOCK_UPSTREAM_HOST: z.string().min(1).default("127.0.0.1"),
  MOCK_ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().positive().optional(),
  MOCK_STREAM_CHUNK_DELAY_MS: z.coerce.number().min(0).optional(),
  MOCK_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(0).optional(),
});

async function main(): Promise<void> {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    console.error(`mock-upstream: bad environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    process.exit(2);
  }
  const env = parsed.data;
  const mock = await startMockUpstream({
    port: env.MOCK_UPSTREAM_PORT,
    host: env.MOCK_UPSTREAM_HOST,
    accessTokenTtlSeconds: env.MOCK_ACCESS_TOKEN_TTL_SECONDS,
    streamChunkDelayMs: env.MOCK_STREAM_CHUNK_DELAY_MS,
    pollIntervalSeconds: env.MOCK_POLL_INTERVAL_SECONDS,
  });
  console.log(`Mock upstream listening on ${mock.url}
  issuer:            ${mock.issuer}
  model backend:     ${mock.codexBaseUrl}
  approval page:     ${mock.verificationUrl}
  SIWC issuer:       ${mock.siwcIssuer} (Sign in with ChatGPT: consent page, token, revoke, JWKS)
  SIWC API base:     ${mock.siwcApiBase} (/models, /responses)
  voice calls:       ${mock.codexBaseUrl}/realtime/calls, ${mock.url}/realtime/{wm,vp,vps} (WebRTC on 127.0.0.1)
  control API:       ${mock.url}/__mock/ (health: ${mock.url}/__mock/health)
  default account:   ${DEFAULT_ACCOUNT.email} (${DEFAULT_ACCOUNT.accountId}, plan ${DEFAULT_ACCOUNT.plan})

Point the app at it:
  LWC_ISSUER_URL=${mock.issuer} LWC_CODEX_BASE_URL=${mock.codexBaseUrl} LWC_CHATGPT_URL=${mock.url}
and for Sign in with ChatGPT too:
  LWC_SIGN_IN=device,siwc LWC_SIWC_ISSUER=${mock.siwcIssuer} LWC_SIWC_API_BASE=${mock.siwcApiBase}`);

  const shutdown = () => {
    void mock.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  console.error(`mock-upstream: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

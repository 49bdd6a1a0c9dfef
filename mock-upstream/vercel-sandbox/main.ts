/**
 * `npm run mock-vercel-sandbox`: the fake Vercel Sandbox API as a server of its own, so it outlives
 * the app's instances (docs/mock-upstream.md#vercel-sandbox).
 * Env: MOCK_VERCEL_SANDBOX_PORT (default 4020), MOCK_VERCEL_SANDBOX_HOST (default 127.0.0.1),
 * MOCK_VERCEL_SANDBOX_IMAGE_PATHS (colon list of host paths every VM shows read-only),
 * MOCK_VERCEL_SANDBOX_EGRESS (comma list of loopback host:port a VM may reach; default the mock
 * upstream's 127.0.0.1:4010).
 */
import { z } from "zod";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox } from "./server";

const envSchema = z.object({
  MOCK_VERCEL_SANDBOX_PORT: z.coerce.number().int().min(0).max(65_535).default(4020),
  MOCK_VERCEL_SANDBOX_HOST: z.string().min(1).default("127.0.0.1"),
  MOCK_VERCEL_SANDBOX_IMAGE_PATHS: z.string().default(""),
  MOCK_VERCEL_SANDBOX_EGRESS: z.string().default("127.0.0.1:4010"),
});

async function main(): Promise<void> {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    console.error(`mock-vercel-sandbox: bad environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    process.exit(2);
  }
  const env = parsed.data;
  const split = (value: string, separator: string) => value.split(separator).map((item) => item.trim()).filter((item) => item !== "");
  const fake = await startFakeVercelSandbox({
    port: env.MOCK_VERCEL_SANDBOX_PORT,
    host: env.MOCK_VERCEL_SANDBOX_HOST,
    imagePaths: split(env.MOCK_VERCEL_SANDBOX_IMAGE_PATHS, ":"),
    egress: split(env.MOCK_VERCEL_SANDBOX_EGRESS, ","),
  });
  console.log(`Fake Vercel Sandbox API listening on ${fake.url}
  credentials:  VERCEL_TOKEN=${fake.token} VERCEL_TEAM_ID=${fake.teamId} VERCEL_PROJECT_ID=${FAKE_VERCEL_PROJECT_ID}
  control API:  ${fake.url}/__fake/ (stats: ${fake.url}/__fake/stats)

Point the app at it:
  LWC_VERCEL_SANDBOX_API_URL=${fake.url}`);

  const shutdown = () => {
    void fake.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  console.error(`mock-vercel-sandbox: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

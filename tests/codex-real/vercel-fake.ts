/**
 * Test support: the fake Vercel Sandbox API (mock-upstream/vercel-sandbox/) with a snapshot of the
 * pinned codex made through the real SDK, its VMs allowed to reach only the mock provider, and the
 * credentials the backend reads from the environment (VERCEL_TOKEN + team + project).
 */
import { makeCodexSnapshot } from "@/lib/agent-voice/sandbox/vercel/snapshot";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import type { MockUpstream } from "@/mock-upstream/server";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox, type FakeVercelSandbox } from "@/mock-upstream/vercel-sandbox/server";
import { codexExecutable, codexReadOnlyPaths } from "./codex-binary";

interface VercelFake {
  fake: FakeVercelSandbox;
  snapshotId: string;
  credentials: { VERCEL_TOKEN: string; VERCEL_TEAM_ID: string; VERCEL_PROJECT_ID: string };
}

export async function startVercelFake(mock: MockUpstream): Promise<VercelFake> {
  const [codexPackages] = codexReadOnlyPaths(codexExecutable());
  const fake = await startFakeVercelSandbox({ imagePaths: [codexPackages!], egress: [new URL(mock.url).host] });
  const credentials = { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: FAKE_VERCEL_PROJECT_ID };
  try {
    const { snapshotId } = await makeCodexSnapshot(vercelSandboxApi(fake.url, credentials), {
      codexVersion: CLIENT_VERSION,
      codex: { linkTo: codexExecutable() },
      log: () => undefined,
    });
    return { fake, snapshotId, credentials };
  } catch (error) {
    await fake.close();
    throw error;
  }
}

/**
 * `npm run doctor`'s agent-voice rows with the real codex executable (pinned 0.171.0) and the real
 * bubblewrap: the binary's version must be the client version the server sends.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "@/lib/doctor/run";
import type { CheckResult } from "@/lib/doctor/types";
import { resolveUpstreamConfig } from "@/lib/upstream/config";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { codexExecutable } from "./codex-binary";

let mock: MockUpstream;
let codexPath: string;
beforeAll(async () => {
  codexPath = codexExecutable();
  mock = await startMockUpstream();
});
afterAll(() => mock?.close());

async function rows(extra: Record<string, string>): Promise<Record<string, CheckResult>> {
  const env = {
    LWC_SECRET: randomBytes(36).toString("base64url"),
    LWC_ISSUER_URL: mock.issuer,
    LWC_CODEX_BASE_URL: mock.codexBaseUrl,
    LWC_CODEX_COMMAND: codexPath,
    ...extra,
  };
  const results = await runDoctor({ env, production: false, timeoutMs: 3000 });
  return Object.fromEntries(results.map((result) => [result.check, result]));
}

describe("the codex binary row", () => {
  it("the pinned codex reports the client version this server sends: ok, and the sandbox it would run in starts", async () => {
    const ours = resolveUpstreamConfig().clientVersion;
    const found = await rows({});
    expect(found["codex binary"]).toMatchObject({ status: "ok", detail: `codex-cli ${ours}, the client version this server sends` });
    expect(found["agent sandbox"]).toMatchObject({ status: "ok" });
  });

  it("a server that sends another client version (LWC_CLIENT_VERSION) fails it: agent voice would speak as another client", async () => {
    const found = await rows({ LWC_CLIENT_VERSION: "0.170.0" });
    expect(found["codex binary"]).toMatchObject({ status: "fail", detail: expect.stringMatching(/^codex-cli \d+\.\d+\.\d+, but this server sends client version 0\.170\.0/) });
  });
});

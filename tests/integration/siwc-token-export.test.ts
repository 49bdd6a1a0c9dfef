import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProviderAuthError } from "@/lib/upstream/errors";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { BASE, createEvidence, startHarness } from "./harness";
import { signInWithSiwc, siwcHandlerOptions } from "./siwc-proxy-support";

const evidence = createEvidence();
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(() => mock.close());

describe("dangerouslyGetTokens with a Sign in with ChatGPT session", () => {
  it("refuses (token_export_not_available_with_siwc) even when token export is on: SIWC tokens serve this app only", async () => {
    const h = await startHarness({
      evidence,
      sharedMock: mock,
      handler: siwcHandlerOptions(mock, { dangerouslyAllowTokenExport: true, dangerouslyAllowRefreshTokenExport: true }),
    });
    try {
      const client = await signInWithSiwc(h);
      // The harness recorded the tokens the SIWC token endpoint issued, so the scan below looks for them.
      expect(evidence.issuedTokens.size).toBeGreaterThan(0);
      const request = new Request(`${h.served.url}${BASE}/session`, { headers: { cookie: `${client.cookieName}=${client.cookie}` } });
      for (const options of [{}, { includeRefreshToken: true }]) {
        const outcome = await h.provider.dangerouslyGetTokens(request, options).then(
          (tokens) => ({ code: "resolved", text: JSON.stringify(tokens) }),
          (error: unknown) => ({ code: isProviderAuthError(error) ? error.code : "other", text: String(error) }),
        );
        expect(outcome.code).toBe("token_export_not_available_with_siwc");
        for (const token of evidence.issuedTokens) expect(outcome.text).not.toContain(token);
      }
    } finally {
      await h.close();
    }
  });
});

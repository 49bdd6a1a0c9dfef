import { describe, expect, it } from "vitest";
import { ApiError } from "../http/api-error";
import { capabilitiesOf, requireCapability, signInKindOf } from "./capabilities";
import type { AuthenticatedRecord } from "./record";

const device: AuthenticatedRecord = {
  version: 1,
  loginId: "login",
  createdAt: 0,
  expiresAt: 1,
  state: "authenticated",
  tokens: { idToken: "i", accessToken: "a", refreshToken: "r", expiresAt: 1 },
  account: { accountId: "acct", email: "a@example.com", plan: "plus" },
};
const siwc: AuthenticatedRecord = { ...device, siwc: { clientId: "c", subject: "s", scopes: [], planUsage: true } };

describe("a session's capabilities", () => {
  it("follow how it signed in: everything for the device code, text replies only for SIWC", () => {
    expect(signInKindOf(device)).toBe("device");
    expect(signInKindOf(siwc)).toBe("siwc");
    expect(capabilitiesOf(device)).toEqual({ voice: true, agentVoice: true, pictures: true, tokenExport: true });
    expect(capabilitiesOf(siwc)).toEqual({ voice: false, agentVoice: false, pictures: false, tokenExport: false });
  });

  it("a route that needs one the session lacks throws 403 not_available_with_siwc, saying which", async () => {
    expect(() => requireCapability(device, "voice")).not.toThrow();
    for (const [feature, words] of [["voice", /^Voice is not available/], ["agentVoice", /^Agent voice is not available/], ["pictures", /^Image generation/]] as const) {
      let thrown: unknown;
      try {
        requireCapability(siwc, feature);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const reply = (thrown as ApiError).toResponse();
      expect(reply.status).toBe(403);
      expect(await reply.json()).toEqual({ error: "not_available_with_siwc", message: expect.stringMatching(words) });
    }
  });
});

import { describe, expect, it } from "vitest";
import { codexUpstreamUrls, REAL_CODEX_BASE_URL, REAL_ISSUER_URL } from "../../codex-config";
import { providerNetworkPolicy } from "./network-policy";

describe("providerNetworkPolicy", () => {
  it("allows exactly the real provider's hosts, once each, and denies the metadata address", () => {
    expect(providerNetworkPolicy(codexUpstreamUrls({ codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: REAL_ISSUER_URL }))).toEqual({
      allow: ["chatgpt.com", "auth.openai.com", "api.openai.com"],
      subnets: { deny: ["169.254.169.254/32"] },
    });
  });

  it("names a local upstream's host without its port or brackets", () => {
    expect(providerNetworkPolicy(["http://127.0.0.1:4010/backend-api/codex", "http://[::1]:4010"])).toMatchObject({ allow: ["127.0.0.1", "::1"] });
  });

  it("refuses an empty list (the API would read no allow list as everything)", () => {
    expect(() => providerNetworkPolicy([])).toThrow(/at least one URL/);
  });
});

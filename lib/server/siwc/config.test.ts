import { describe, expect, it } from "vitest";
import { optionsFromEnv } from "@/lib/env-options";
import { resolveOptions } from "../options";

const SECRET = "siwc-config-test-secret-0123456789abcdef";

describe("the SIWC settings from the environment", () => {
  it("defaults to device code only", () => {
    expect(optionsFromEnv({ LWC_SECRET: SECRET }).signIn).toEqual({ device: true, siwc: false });
    expect(resolveOptions({ secrets: [SECRET] }).signIn).toEqual({ device: true });
  });

  it("turns SIWC on with its defaults, and on a hosting platform marks it hosted", () => {
    expect(resolveOptions({ secrets: [SECRET], ...optionsFromEnv({ LWC_SECRET: SECRET, LWC_SIGN_IN: " siwc , device " }) }).signIn).toEqual({
      device: true,
      siwc: {
        issuer: "https://auth.openai.com",
        apiBase: "https://api.openai.com/v1",
        agentName: "Sign in with ChatGPT (Next.js reference app)",
        peerCheck: true,
        hosted: false,
      },
    });
    expect(optionsFromEnv({ LWC_SECRET: SECRET, LWC_SIGN_IN: "siwc", VERCEL: "1" }).signIn).toMatchObject({ device: false, siwc: { hosted: true } });
    expect(optionsFromEnv({ LWC_SECRET: SECRET, LWC_SIGN_IN: "siwc", LWC_SIWC_PEER_CHECK: "OFF" }).signIn).toMatchObject({ siwc: { peerCheck: false } });
  });

  it("takes the mock's http loopback URLs (trailing slash trimmed) and a host id", () => {
    const { signIn } = optionsFromEnv({
      LWC_SECRET: SECRET,
      LWC_SIGN_IN: "siwc",
      LWC_SIWC_ISSUER: "http://127.0.0.1:4010/siwc/",
      LWC_SIWC_API_BASE: "http://localhost:4010/siwc/v1",
      LWC_SIWC_HOST_ID: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
      LWC_SIWC_AGENT_NAME: "  My App  ",
    });
    expect(signIn).toMatchObject({
      siwc: { issuer: "http://127.0.0.1:4010/siwc", apiBase: "http://localhost:4010/siwc/v1", agentName: "My App", hostId: expect.stringMatching(/^did:key:/) },
    });
  });

  it.each([
    ["LWC_SIGN_IN", "device,password"],
    ["LWC_SIGN_IN", ","],
    ["LWC_SIWC_ISSUER", "http://auth.example.com"],
    ["LWC_SIWC_ISSUER", "https://auth.example.com/?x=1"],
    ["LWC_SIWC_API_BASE", "not a url"],
    ["LWC_SIWC_HOST_ID", "person@example.com"],
    ["LWC_SIWC_HOST_ID", "urn:uuid:0b5d6f8e-2a4c-1d9e-8f1a-3b6c7d8e9f0a"],
    ["LWC_SIWC_AGENT_NAME", "x".repeat(101)],
    ["LWC_SIWC_PEER_CHECK", "maybe"],
  ])("refuses %s=%s, naming the variable and not the value", (name, value) => {
    expect(() => optionsFromEnv({ LWC_SECRET: SECRET, LWC_SIGN_IN: "siwc", [name]: value })).toThrow(new RegExp(`^Invalid environment variable ${name}:`));
  });

  it("checks the handler options the same way", () => {
    expect(() => resolveOptions({ secrets: [SECRET], signIn: { device: false } })).toThrow(/signIn: at least one sign-in method/);
    expect(() => resolveOptions({ secrets: [SECRET], signIn: { siwc: { hostId: "user-42" } } })).toThrow(/signIn\.siwc\.hostId/);
    expect(() => resolveOptions({ secrets: [SECRET], signIn: { siwc: { issuer: "ftp://x" } } })).toThrow(/signIn\.siwc\.issuer/);
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveUpstreamConfig } from "@/lib/upstream/config";
import { isSiwcFlowError } from "./flow-error";
import { createIdTokenVerifier } from "./id-token";

/**
 * The ID token checks one by one, with tokens signed here and the keys served over HTTP (the mock
 * issuer signs only good tokens; these are the bad ones it never sends).
 */
const ISSUER = "https://auth.example.test";
const CLIENT = "oaiapp_test123";
const NONCE = "nonce-of-this-attempt";

let server: Server;
let jwksUri: string;
let published: { keys: JWK[] } = { keys: [] };
let jwksStatus = 200;
let jwksFetches = 0;
let sign: (payload: JWTPayload, kid?: string) => Promise<string>;
let signOther: (payload: JWTPayload) => Promise<string>;
let clock = Date.now();

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  const other = await generateKeyPair("RS256", { extractable: true });
  published = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" }] };
  sign = (payload, kid = "k1") => new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid }).sign(pair.privateKey);
  signOther = (payload) => new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "k1" }).sign(other.privateKey);
  server = createServer((_req, res) => {
    jwksFetches += 1;
    res.writeHead(jwksStatus, { "content-type": "application/json" });
    res.end(JSON.stringify(published));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const now = () => clock;
const claims = (overrides: JWTPayload = {}): JWTPayload => ({
  iss: ISSUER,
  aud: [CLIENT],
  sub: "user-1",
  email: "person@example.com",
  nonce: NONCE,
  iat: Math.floor(clock / 1000),
  exp: Math.floor(clock / 1000) + 3600,
  ...overrides,
});

function verifier() {
  return createIdTokenVerifier(resolveUpstreamConfig({ fetch }), now);
}

async function failure(token: string, expected: { nonce?: string } = { nonce: NONCE }) {
  try {
    await verifier().verify(token, { jwksUri, issuer: ISSUER, clientId: CLIENT, ...expected });
  } catch (error) {
    if (isSiwcFlowError(error)) return error.code;
    throw error;
  }
  return "verified";
}

describe("SIWC ID token verification", () => {
  it("accepts a good token, aud as an array or a string, and reads sub and email", async () => {
    const identity = await verifier().verify(await sign(claims()), { jwksUri, issuer: ISSUER, clientId: CLIENT, nonce: NONCE });
    expect(identity).toEqual({ subject: "user-1", email: "person@example.com" });
    expect(await failure(await sign(claims({ aud: CLIENT })))).toBe("verified");
    // A refresh's ID token carries no nonce and none is asked.
    expect(await failure(await sign(claims({ nonce: undefined })), {})).toBe("verified");
  });

  it.each([
    ["another nonce", { nonce: "someone-elses" }],
    ["no nonce", { nonce: undefined }],
    ["another issuer", { iss: "https://evil.example" }],
    ["another audience", { aud: ["oaiapp_other"] }],
    ["several audiences without azp", { aud: [CLIENT, "oaiapp_other"] }],
    ["an azp that is not the client", { azp: "oaiapp_other" }],
    ["no sub", { sub: undefined }],
    ["no iat", { iat: undefined }],
  ])("refuses %s: invalid_id_token", async (_what, overrides) => {
    expect(await failure(await sign(claims(overrides as JWTPayload)))).toBe("invalid_id_token");
  });

  it("checks exp with 5 s of tolerance", async () => {
    const exp = Math.floor(clock / 1000) - 3;
    expect(await failure(await sign(claims({ exp })))).toBe("verified");
    expect(await failure(await sign(claims({ exp: exp - 10 })))).toBe("invalid_id_token");
  });

  it("refuses a signature of another key and a token that is not RS256", async () => {
    expect(await failure(await signOther(claims()))).toBe("invalid_id_token");
    const hs256 = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256", kid: "k1" }).sign(new TextEncoder().encode("x".repeat(32)));
    expect(await failure(hs256)).toBe("invalid_id_token");
    expect(await failure("not-a-jwt")).toBe("invalid_id_token");
  });

  it("keys that cannot be had are identity_verification_unavailable, not a bad token", async () => {
    jwksStatus = 503;
    try {
      expect(await failure(await sign(claims()))).toBe("identity_verification_unavailable");
    } finally {
      jwksStatus = 200;
    }
    const kept = published;
    published = { keys: [] };
    try {
      expect(await failure(await sign(claims()))).toBe("identity_verification_unavailable");
    } finally {
      published = kept;
    }
  });

  it("fetches the keys again for an unknown kid, at most every 30 s", async () => {
    const one = verifier();
    const expected = { jwksUri, issuer: ISSUER, clientId: CLIENT, nonce: NONCE };
    await one.verify(await sign(claims()), expected);
    const fetches = jwksFetches;
    await expect(one.verify(await sign(claims(), "k2"), expected)).rejects.toMatchObject({ code: "invalid_id_token" });
    expect(jwksFetches).toBe(fetches);
    clock += 31_000;
    await expect(one.verify(await sign(claims(), "k2"), expected)).rejects.toMatchObject({ code: "invalid_id_token" });
    expect(jwksFetches).toBe(fetches + 1);
  });
});

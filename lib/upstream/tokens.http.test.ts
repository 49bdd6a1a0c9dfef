import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import { isRefreshTokenInvalid } from "./errors";
import { readAccountInfo, readJwtExpiry } from "./jwt";
import { closedPortUrl, configForMock, rejection, signInThroughMock } from "@/test-support/upstream-helpers";
import { refreshTokenSet, revokeRefreshToken } from "./tokens";
import type { UpstreamConfig } from "./types";

let mock: MockUpstream;
let config: UpstreamConfig;

beforeAll(async () => {
  mock = await startMockUpstream();
  config = configForMock(mock);
});

afterAll(async () => {
  await mock.close();
});

describe("refreshTokenSet against the mock upstream", () => {
  it("sends JSON, keeps the rotated refresh token, and the old one is then dead (reused)", async () => {
    const first = await signInThroughMock(mock, config, { accountId: "acct_rotate" });
    const second = await refreshTokenSet(config, first);

    const call = mock.requests({ path: "/oauth/token" }).at(-1);
    expect(call?.headers["content-type"]).toMatch(/^application\/json/);
    expect(call?.body).toEqual({ client_id: config.clientId, grant_type: "refresh_token", refresh_token: first.refreshToken });

    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.expiresAt).toBe(readJwtExpiry(second.accessToken));
    expect(readAccountInfo(second).accountId).toBe("acct_rotate");

    const reused = await rejection(refreshTokenSet(config, first));
    expect(reused.code).toBe("refresh_token_invalid");
    expect(isRefreshTokenInvalid(reused)).toBe(true);
    expect(reused.status).toBe(401);
    expect(reused.body).toContain("refresh_token_reused");
    expect(reused.message).not.toContain(first.refreshToken);
    expect(JSON.stringify(reused)).not.toContain(first.refreshToken);
  });

  it("can refresh again with the rotated token", async () => {
    const first = await signInThroughMock(mock, config, { accountId: "acct_chain" });
    const second = await refreshTokenSet(config, first);
    const third = await refreshTokenSet(config, second);
    expect(new Set([first.refreshToken, second.refreshToken, third.refreshToken]).size).toBe(3);
  });

  it("maps the dead_refresh_token fault (401 refresh_token_invalidated) to refresh_token_invalid", async () => {
    const tokens = await signInThroughMock(mock, config, { accountId: "acct_dead" });
    mock.addFault({ fault: "dead_refresh_token", accountId: "acct_dead" });
    const error = await rejection(refreshTokenSet(config, tokens));
    expect(error.code).toBe("refresh_token_invalid");
    expect(error.message).toContain("refresh_token_invalidated");
  });

  it("maps a 5xx to token_refresh_failed, and the same token still works afterwards", async () => {
    const tokens = await signInThroughMock(mock, config, { accountId: "acct_blip" });
    mock.addFault({ fault: "refresh_server_error", accountId: "acct_blip" });
    const error = await rejection(refreshTokenSet(config, tokens));
    expect(error.code).toBe("token_refresh_failed");
    expect(error.status).toBe(500);
    expect(isRefreshTokenInvalid(error)).toBe(false);

    const refreshed = await refreshTokenSet(config, tokens);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
  });

  it("maps an invalid client (401) to refresh_token_invalid, as Codex treats any 401", async () => {
    const tokens = await signInThroughMock(mock, config);
    const error = await rejection(refreshTokenSet(configForMock(mock, { clientId: "app_other" }), tokens));
    expect(error.code).toBe("refresh_token_invalid");
    expect(error.status).toBe(401);
  });

  it("throws network_error when nothing listens", async () => {
    const tokens = await signInThroughMock(mock, config);
    const closed = configForMock(mock, { issuer: await closedPortUrl() });
    expect((await rejection(refreshTokenSet(closed, tokens))).code).toBe("network_error");
  });
});

describe("refreshTokenSet against a provider that reports dead tokens with a 400", () => {
  // The mock always uses 401 for dead tokens, which "any 401" already covers; this real server
  // answers 400 so the code matching itself is what decides.
  const replies = [
    { error: { code: "refresh_token_expired", message: "expired" } },
    { error: "refresh_token_reused" },
    { error: { type: "invalid_request_error", message: "gone" }, code: "refresh_token_invalidated" },
  ];
  let server: ReturnType<typeof createServer>;
  let issuer: string;
  let next = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      const body = next < replies.length ? replies[next] : { error: { code: "invalid_request", message: "other" } };
      next += 1;
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("reads the dead-token code from error.code, a string error, or a top-level code; other 400s are transient", async () => {
    const provider = configForMock(mock, { issuer });
    const tokens = { idToken: "i", accessToken: "a", refreshToken: "r", expiresAt: 0 };
    for (let i = 0; i < replies.length; i += 1) {
      expect((await rejection(refreshTokenSet(provider, tokens))).code).toBe("refresh_token_invalid");
    }
    const other = await rejection(refreshTokenSet(provider, tokens));
    expect(other.code).toBe("token_refresh_failed");
    expect(other.status).toBe(400);
  });
});

describe("revokeRefreshToken against the mock upstream", () => {
  it("revokes the login so the refresh token no longer works", async () => {
    const tokens = await signInThroughMock(mock, config);
    await revokeRefreshToken(config, tokens.refreshToken);
    const call = mock.requests({ path: "/oauth/revoke" }).at(-1);
    expect(call?.body).toEqual({ token: tokens.refreshToken, token_type_hint: "refresh_token", client_id: config.clientId });
    expect(call?.status).toBe(200);
    expect((await rejection(refreshTokenSet(config, tokens))).code).toBe("refresh_token_invalid");
  });

  it("never throws, even when nothing listens", async () => {
    const closed = configForMock(mock, { issuer: await closedPortUrl() });
    await expect(revokeRefreshToken(closed, "rt_whatever")).resolves.toBeUndefined();
  });
});

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import {
  DEVICE_CODE_LIFETIME_MS,
  exchangeAuthorizationCode,
  pollDeviceAuthorization,
  requestDeviceCode,
} from "./device-flow";
import { readAccountInfo, readJwtExpiry } from "./jwt";
import { configForMock, rejection } from "@/test-support/upstream-helpers";
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

describe("device flow against the mock upstream", () => {
  it("requests a code, polls pending, is approved, exchanges the code and reads the account", async () => {
    const now = 1_800_000_000_000;
    const device = await requestDeviceCode(config, { now });
    expect(device.userCode).toMatch(/\S/);
    expect(device.deviceAuthId).toMatch(/\S/);
    expect(device.intervalSeconds).toBe(5);
    expect(device.verificationUrl).toBe(mock.verificationUrl);
    expect(device.issuedAt).toBe(now);
    expect(device.expiresAt).toBe(now + DEVICE_CODE_LIFETIME_MS);

    const usercodeCall = mock.requests({ path: "/api/accounts/deviceauth/usercode" }).at(-1);
    expect(usercodeCall?.body).toEqual({ client_id: config.clientId });
    expect(usercodeCall?.headers.originator).toBe("codex_cli_rs");

    expect(await pollDeviceAuthorization(config, device)).toEqual({ status: "pending" });

    expect(mock.approve(device.userCode, { accountId: "acct_flow", email: "flow@example.com", plan: "pro", userId: "user_flow" })).toBe(true);
    const approved = await pollDeviceAuthorization(config, device);
    if (approved.status !== "approved") throw new Error("expected approval");
    expect(approved.authorizationCode).toMatch(/\S/);
    expect(approved.codeVerifier).toMatch(/\S/);
    expect(approved.codeChallenge).toMatch(/\S/);

    const before = Date.now();
    const tokens = await exchangeAuthorizationCode(config, approved);
    expect(tokens.refreshToken).toMatch(/\S/);
    expect(tokens.expiresAt).toBe(readJwtExpiry(tokens.accessToken));
    expect(tokens.expiresAt).toBeGreaterThan(before + 3000_000);

    const exchangeCall = mock.requests({ path: "/oauth/token" }).at(-1);
    expect(exchangeCall?.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    expect(exchangeCall?.body).toEqual({
      grant_type: "authorization_code",
      code: approved.authorizationCode,
      code_verifier: approved.codeVerifier,
      client_id: config.clientId,
      redirect_uri: `${mock.issuer}/deviceauth/callback`,
    });

    expect(readAccountInfo(tokens)).toEqual({
      accountId: "acct_flow",
      email: "flow@example.com",
      plan: "pro",
      userId: "user_flow",
    });
  });

  it("maps a 404 from the usercode endpoint to device_code_disabled", async () => {
    mock.addFault({ fault: "device_code_disabled" });
    const error = await rejection(requestDeviceCode(config));
    expect(error.code).toBe("device_code_disabled");
    expect(error.status).toBe(404);
  });

  it("maps another failure of the usercode endpoint to device_code_request_failed", async () => {
    mock.addFault({ fault: "device_code_server_error" });
    const error = await rejection(requestDeviceCode(config));
    expect(error.code).toBe("device_code_request_failed");
    expect(error.status).toBe(500);
    expect(error.body).toContain("internal_error");
  });

  it("maps a wrong client id (400) to device_code_request_failed", async () => {
    const error = await rejection(requestDeviceCode(configForMock(mock, { clientId: "app_unknown" })));
    expect(error.code).toBe("device_code_request_failed");
    expect(error.status).toBe(400);
  });

  it("throws authorization_denied after the user denies", async () => {
    const device = await requestDeviceCode(config);
    expect(mock.deny(device.userCode)).toBe(true);
    const error = await rejection(pollDeviceAuthorization(config, device));
    expect(error.code).toBe("authorization_denied");
    expect(error.status).toBe(400);
  });

  it("throws authorization_expired once the code has expired", async () => {
    const device = await requestDeviceCode(config);
    expect(mock.expire(device.userCode)).toBe(true);
    const error = await rejection(pollDeviceAuthorization(config, device));
    expect(error.code).toBe("authorization_expired");
  });

  it("treats an unknown device (404) as pending, as upstream does", async () => {
    expect(await pollDeviceAuthorization(config, { deviceAuthId: "nope", userCode: "NOPE-0000" })).toEqual({
      status: "pending",
    });
  });

  it("treats a too-fast poll (429) as pending", async () => {
    const strict = await startMockUpstream({ enforcePollInterval: true, pollIntervalSeconds: 30 });
    try {
      const strictConfig = configForMock(strict);
      const device = await requestDeviceCode(strictConfig);
      expect(device.intervalSeconds).toBe(30);
      await pollDeviceAuthorization(strictConfig, device);
      expect(await pollDeviceAuthorization(strictConfig, device)).toEqual({ status: "pending" });
      expect(strict.requests({ path: "/api/accounts/deviceauth/token" }).at(-1)?.status).toBe(429);
    } finally {
      await strict.close();
    }
  });

  it("fails the exchange of an unknown code with token_exchange_failed", async () => {
    const error = await rejection(exchangeAuthorizationCode(config, { authorizationCode: "bogus", codeVerifier: "bogus" }));
    expect(error.code).toBe("token_exchange_failed");
    expect(error.status).toBe(400);
    expect(error.message).toContain("invalid_grant");
  });

  it("throws network_error when nothing listens", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = configForMock(mock, { issuer: `http://127.0.0.1:${port}` });

    expect((await rejection(requestDeviceCode(closed))).code).toBe("network_error");
    expect((await rejection(pollDeviceAuthorization(closed, { deviceAuthId: "a", userCode: "b" }))).code).toBe("network_error");
    expect((await rejection(exchangeAuthorizationCode(closed, { authorizationCode: "a", codeVerifier: "b" }))).code).toBe(
      "network_error",
    );
  });
});

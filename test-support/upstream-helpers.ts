/** Helpers for the lib/upstream tests: sign-in through the mock, error capture, an unused port. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MockAccount, MockUpstream } from "@/mock-upstream/server";
import { resolveUpstreamConfig } from "@/lib/upstream/config";
import { exchangeAuthorizationCode, pollDeviceAuthorization, requestDeviceCode } from "@/lib/upstream/device-flow";
import { isProviderAuthError, type ProviderAuthError } from "@/lib/upstream/errors";
import type { TokenSet, UpstreamConfig } from "@/lib/upstream/types";

/** The ProviderAuthError a promise rejects with; anything else fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<ProviderAuthError> {
  try {
    await promise;
  } catch (error) {
    if (isProviderAuthError(error)) return error;
    throw error;
  }
  throw new Error("expected a ProviderAuthError");
}

/** An http URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export function configForMock(mock: MockUpstream, overrides: Partial<UpstreamConfig> = {}): UpstreamConfig {
  return resolveUpstreamConfig({ issuer: mock.issuer, codexBaseUrl: mock.codexBaseUrl, ...overrides });
}

export async function signInThroughMock(
  mock: MockUpstream,
  config: UpstreamConfig,
  account?: Partial<MockAccount>,
): Promise<TokenSet> {
  const device = await requestDeviceCode(config);
  if (!mock.approve(device.userCode, account)) throw new Error("mock did not know the user code");
  const poll = await pollDeviceAuthorization(config, device);
  if (poll.status !== "approved") throw new Error("expected an approved poll");
  return exchangeAuthorizationCode(config, poll);
}

/** Joins the text deltas of a Responses SSE body. */
export function sseOutputText(sse: string): string {
  return sse
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as { type?: string; delta?: string })
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => event.delta ?? "")
    .join("");
}

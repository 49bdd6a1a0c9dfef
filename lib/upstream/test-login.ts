/** Test helper: a complete device login against the mock upstream, through our own functions. */
import type { MockAccount, MockUpstream } from "@/mock-upstream/server";
import { resolveUpstreamConfig } from "./config";
import { exchangeAuthorizationCode, pollDeviceAuthorization, requestDeviceCode } from "./device-flow";
import type { TokenSet, UpstreamConfig } from "./types";

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

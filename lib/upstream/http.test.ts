import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveUpstreamConfig } from "./config";
import { isProviderAuthError, type ProviderAuthError } from "./errors";
import { fetchUpstreamStream, fetchUpstreamText } from "./http";

/** A real server that answers /ok and holds every other request open until the server closes. */
let server: Server;
let baseUrl: string;
const heldResponses = new Set<ServerResponse>();
interface Arrival {
  request: IncomingMessage;
  response: ServerResponse;
}
const arrivals: Array<(arrival: Arrival) => void> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/ok") {
      response.end("fine");
      return;
    }
    heldResponses.add(response);
    arrivals.shift()?.({ request, response });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of heldResponses) response.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function nextArrival(): Promise<Arrival> {
  return new Promise((resolve) => arrivals.push(resolve));
}

async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/x`;
}

async function capture(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("fetchUpstreamText", () => {
  it("reads status and text", async () => {
    const reply = await fetchUpstreamText(resolveUpstreamConfig(), `${baseUrl}/ok`, {}, "Probe");
    expect(reply).toMatchObject({ status: 200, ok: true, text: "fine" });
  });

  it("maps a timeout to network_error", async () => {
    const config = resolveUpstreamConfig({ requestTimeoutMs: 200 });
    const error = await capture(fetchUpstreamText(config, `${baseUrl}/hang`, {}, "Probe"));
    expect(isProviderAuthError(error) && error.code).toBe("network_error");
    expect((error as Error).message).toBe("Probe failed: the provider did not answer within 200 ms.");
    expect((error as ProviderAuthError).upstreamOrigin).toBe(new URL(baseUrl).origin);
  });

  it("maps a refused connection to network_error", async () => {
    const url = await closedPortUrl();
    const error = await capture(fetchUpstreamText(resolveUpstreamConfig(), url, {}, "Probe"));
    expect(isProviderAuthError(error) && error.code).toBe("network_error");
    // Routes pass the message on to the browser: it never names the upstream; the log line does.
    expect((error as Error).message).toBe("Probe failed: the provider could not be reached.");
    expect((error as ProviderAuthError).upstreamOrigin).toBe(new URL(url).origin);
  });

  it("rethrows the caller's abort as is", async () => {
    const controller = new AbortController();
    const arrived = nextArrival();
    const pending = capture(fetchUpstreamText(resolveUpstreamConfig(), `${baseUrl}/hang`, {}, "Probe", { signal: controller.signal }));
    await arrived;
    controller.abort();
    const error = await pending;
    expect(isProviderAuthError(error)).toBe(false);
    expect((error as Error).name).toBe("AbortError");
  });
});

describe("fetchUpstreamStream", () => {
  it("maps a refused connection to network_error and rethrows the caller's abort", async () => {
    const refused = await capture(fetchUpstreamStream(resolveUpstreamConfig(), await closedPortUrl(), {}, "Probe"));
    expect(isProviderAuthError(refused) && refused.code).toBe("network_error");

    const controller = new AbortController();
    const arrived = nextArrival();
    const pending = capture(fetchUpstreamStream(resolveUpstreamConfig(), `${baseUrl}/hang`, {}, "Probe", { signal: controller.signal }));
    await arrived;
    controller.abort();
    expect((await pending as Error).name).toBe("AbortError");
  });

  it("applies no timeout to streams", async () => {
    const config = resolveUpstreamConfig({ requestTimeoutMs: 50 });
    const arrived = nextArrival();
    const pending = fetchUpstreamStream(config, `${baseUrl}/slow`, {}, "Probe");
    const { response: held } = await arrived;
    // Elapsed time is the subject here, not a synchronisation stand-in: the reply is held for
    // several times requestTimeoutMs, and the stream call must still succeed.
    await new Promise((resolve) => setTimeout(resolve, 4 * config.requestTimeoutMs));
    held.end("late");
    const response = await pending;
    expect(await response.text()).toBe("late");
  });
});

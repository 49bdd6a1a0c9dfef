import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolveAccount } from "./accounts";
import { APPROVAL_DECISION_PATH, handleApprovalDecision, handleApprovalPage } from "./approval-page";
import { MOCK_CLIENT_ID, type MockContext, type RouteCall, type RouteHandler } from "./context";
import { CodexMockState, CODEX_ROUTES } from "./codex";
import { CONTROL_PREFIX, handleControl } from "./control-api";
import { handleDevicePoll, handleUserCode } from "./device-routes";
import { DeviceFlow } from "./device-flow";
import { FaultBook } from "./faults";
import { lowerCaseHeaders, mediaType, multipartBoundary, parseBody, readRawBody, sendJson } from "./http-util";
import { handleModels } from "./models-route";
import { handleRevoke, handleToken } from "./oauth-routes";
import { RequestRecorder } from "./recorder";
import { SiwcMock } from "./siwc";
import { handleResponses } from "./responses";
import { TokenAuthority } from "./tokens";
import { DEFAULT_MOCK_OPTIONS, type MockUpstream, type MockUpstreamOptions, type ResolvedMockOptions } from "./types";
import { VoiceCalls } from "./voice/calls";
import { CODEX_CALLS_PATH, handleCodexCall, WEB_VOICE_PATHS, webVoiceHandler } from "./voice/routes";

export * from "./types";
export { MOCK_CLIENT_ID } from "./context";

export const RESPONSES_PATH = "/backend-api/codex/responses";
export const MODELS_PATH = "/backend-api/codex/models";
export { CODEX_CALLS_PATH } from "./voice/routes";

const ROUTES: Record<string, RouteHandler> = {
  ...CODEX_ROUTES,
  "POST /api/accounts/deviceauth/usercode": handleUserCode,
  "POST /api/accounts/deviceauth/token": handleDevicePoll,
  "POST /oauth/token": handleToken,
  "POST /oauth/revoke": handleRevoke,
  [`GET ${MODELS_PATH}`]: handleModels,
  [`POST ${RESPONSES_PATH}`]: handleResponses,
  "GET /codex/device": handleApprovalPage,
  [`POST ${APPROVAL_DECISION_PATH}`]: handleApprovalDecision,
  [`POST ${CODEX_CALLS_PATH}`]: handleCodexCall,
  [`POST ${WEB_VOICE_PATHS.wm}`]: webVoiceHandler("wm"),
  [`POST ${WEB_VOICE_PATHS.vp}`]: webVoiceHandler("vp"),
  [`POST ${WEB_VOICE_PATHS.vps}`]: webVoiceHandler("vps"),
};

function withoutUndefined(patch: Partial<MockUpstreamOptions>): Partial<ResolvedMockOptions> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<ResolvedMockOptions>;
}

/** Start the mock identity provider + model backend on one origin. */
export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const initialOptions: ResolvedMockOptions = { ...DEFAULT_MOCK_OPTIONS, ...withoutUndefined(options) };
  const context: MockContext = {
    issuer: "",
    options: { ...initialOptions },
    recorder: new RequestRecorder(),
    faults: new FaultBook(),
    tokens: undefined as unknown as TokenAuthority,
    devices: new DeviceFlow(),
    responsesServed: new Map(),
    codex: undefined as unknown as CodexMockState,
    voiceCalls: new VoiceCalls(),
  };
  context.codex = new CodexMockState(context);
  const siwc = await SiwcMock.create(
    () => context.issuer,
    () => context.options.streamChunkDelayMs,
  );

  const server = createServer((request, response) => {
    void handleRequest(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { error: { code: "mock_internal_error", message: "mock upstream failed" } });
      else response.destroy();
    });
  });

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", context.issuer);
    const body = parseBody(await readRawBody(request), mediaType(request), multipartBoundary(request));
    let serverCut = false;
    const call: RouteCall = {
      request,
      response,
      url,
      body,
      record: undefined,
      markServerCut: () => {
        serverCut = true;
      },
    };
    if (url.pathname.startsWith(CONTROL_PREFIX)) return handleControl(mock, call);

    const record = context.recorder.record({
      method: request.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: lowerCaseHeaders(request),
      body: body.value,
      receivedAt: Date.now(),
    });
    call.record = record;
    const originalWriteHead = response.writeHead.bind(response);
    response.writeHead = ((...args: Parameters<ServerResponse["writeHead"]>) => {
      context.recorder.update(record, { status: args[0] });
      return originalWriteHead(...args);
    }) as ServerResponse["writeHead"];
    response.once("finish", () => context.recorder.update(record, { completed: true }));
    response.once("close", () => {
      if (!response.writableFinished && !serverCut) context.recorder.update(record, { aborted: true });
    });

    if (SiwcMock.owns(url.pathname)) return siwc.handle(call);
    const handler = ROUTES[`${request.method} ${url.pathname}`];
    if (handler) return handler(context, call);
    const knownPath = Object.keys(ROUTES).some((key) => key.endsWith(` ${url.pathname}`));
    if (knownPath) return sendJson(response, 405, { detail: "Method Not Allowed" });
    sendJson(response, 404, { detail: "Not Found" });
  }

  server.on("upgrade", (request, socket, head: Buffer) => context.codex.handleUpgrade(request, socket, head, context.issuer));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(initialOptions.port, initialOptions.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  context.issuer = url;
  context.tokens = new TokenAuthority(url, MOCK_CLIENT_ID, () => context.options.accessTokenTtlSeconds);

  const mock: MockUpstream = {
    url,
    issuer: url,
    codexBaseUrl: `${url}/backend-api/codex`,
    verificationUrl: `${url}/codex/device`,
    siwcIssuer: `${url}/siwc`,
    siwcApiBase: `${url}/siwc/v1`,
    approve: (userCode, account) => context.devices.approve(userCode, resolveAccount(account)),
    deny: (userCode) => context.devices.deny(userCode),
    expire: (userCode) => context.devices.expire(userCode),
    addFault: (rule) => context.faults.add(rule),
    clearFaults: () => context.faults.clear(),
    requests: (filter) => context.recorder.list(filter),
    waitForRequest: (predicate, timeoutMs) => context.recorder.waitFor(predicate, timeoutMs),
    waitForAbort: (timeoutMs) => context.recorder.waitFor((r) => r.path === RESPONSES_PATH && r.aborted, timeoutMs),
    voiceCalls: (filter) => context.voiceCalls.list(filter),
    waitForVoiceCall: (predicate, timeoutMs) => context.voiceCalls.waitFor(predicate, timeoutMs),
    setOptions: (patch) => {
      // port and host only matter at start.
      const changeable = withoutUndefined(patch);
      delete changeable.port;
      delete changeable.host;
      Object.assign(context.options, changeable);
    },
    codex: context.codex.controls,
    siwc: siwc.controls,
    reset: () => {
      siwc.reset();
      context.recorder.clear();
      context.faults.clear();
      context.devices.clear();
      context.responsesServed.clear();
      context.codex.reset();
      context.voiceCalls.clear();
      context.options = { ...initialOptions };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        context.voiceCalls.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
        context.codex.close();
      }),
  };
  return mock;
}

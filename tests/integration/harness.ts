/**
 * Shared set-up of the integration tests: the real mock upstream, the handler served over real
 * HTTP, a cookie-keeping client, a controllable clock, captured log lines, every response body,
 * and every token the identity provider issued (seen on the wire by a recording fetch).
 */
import { expect } from "vitest";
import { createMemoryStore } from "@/lib/stores/memory-store";
import type { KeyValueStore } from "@/lib/stores/types";
import { createProviderHandler, type ProviderHandler } from "@/lib/server/handler";
import { LOGIN_NONCE_HEADER, LOGIN_NONCE_OPT_IN } from "@/lib/server/session/login-nonce";
import type { ProviderHandlerOptions } from "@/lib/server/options";
import { startMockUpstream, type MockAccount, type MockUpstream, type MockUpstreamOptions } from "@/mock-upstream/server";
import { serveHandler, type ServedHandler } from "@/test-support/serve-handler";

export const TEST_SECRET = "integration-test-secret-0123456789-abcdef";
export const BASE = "/api/provider";

interface LogLine {
  level: "info" | "warn" | "error";
  message: string;
}

/** Everything a test file saw: scanned at the end for leaked tokens. */
interface Evidence {
  bodies: string[];
  logs: LogLine[];
  issuedTokens: Set<string>;
}

export function createEvidence(): Evidence {
  return { bodies: [], logs: [], issuedTokens: new Set() };
}

/**
 * A fetch for the upstream config that remembers every token a token endpoint hands out. It wraps
 * `inner` (a test's own fetch, or the global one), so tokens issued through a test's fetch are
 * recorded too and the leak scan sees them.
 */
function recordingFetch(evidence: Evidence, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const { pathname } = new URL(url);
    // The device flow's token endpoint, and Sign in with ChatGPT's (below its issuer's path).
    if ((pathname === "/oauth/token" || pathname.endsWith("/api/accounts/oauth/token")) && response.ok) {
      // A test's own fetch may answer with something that is not JSON: then there is no token to record.
      const json = (await response
        .clone()
        .json()
        .catch(() => undefined)) as Record<string, unknown> | undefined;
      for (const field of ["access_token", "refresh_token", "id_token"]) {
        const token = json?.[field];
        if (typeof token === "string") evidence.issuedTokens.add(token);
      }
    }
    return response;
  };
}

/**
 * A pending state as another reading of the same login shows it: every field the same except
 * nextCheckInMs, which counts down with the clock.
 */
export function sameLogin<T extends object>(state: T): T {
  return { ...state, nextCheckInMs: expect.any(Number) };
}

/** A clock tests can move forward; the handler and its memory store share it. */
export function createClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
    /** Moves to the start of the next fixed rate-limit window, so a burst cannot straddle two windows. */
    alignToWindowStart(windowMs: number) {
      offset += windowMs - ((Date.now() + offset) % windowMs);
    },
  };
}

export interface Harness {
  mock: MockUpstream;
  served: ServedHandler;
  provider: ProviderHandler;
  store: KeyValueStore;
  clock: ReturnType<typeof createClock>;
  evidence: Evidence;
  url(path: string): string;
  /**
   * A cookie-keeping client. By default it speaks only the contract (cookie, no extra headers);
   * `page: true` makes it behave like our page: it opts in to the login nonce (x-lwc-login-nonce).
   */
  client(options?: { host?: "127.0.0.1" | "localhost"; page?: boolean }): TestClient;
  close(): Promise<void>;
}

export interface HarnessOptions {
  mock?: MockUpstreamOptions;
  /** Extra handler options (upstream/logger/now/store are wired by the harness unless given). */
  handler?: ProviderHandlerOptions;
  evidence?: Evidence;
  /** Reuse an already running mock (several handlers against one upstream). */
  sharedMock?: MockUpstream;
}

export function handlerOptionsFor(
  mock: MockUpstream,
  evidence: Evidence,
  clock: ReturnType<typeof createClock>,
  extra: ProviderHandlerOptions = {},
): ProviderHandlerOptions {
  const logger = {
    info: (message: string) => evidence.logs.push({ level: "info", message }),
    warn: (message: string) => evidence.logs.push({ level: "warn", message }),
    error: (message: string) => evidence.logs.push({ level: "error", message }),
  };
  return {
    secrets: [TEST_SECRET],
    logger,
    now: clock.now,
    ...extra,
    upstream: {
      issuer: mock.issuer,
      codexBaseUrl: mock.codexBaseUrl,
      ...extra.upstream,
      // Always recorded: a test's own fetch is wrapped, never a replacement for the recording.
      fetch: recordingFetch(evidence, extra.upstream?.fetch),
    },
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const evidence = options.evidence ?? createEvidence();
  const mock = options.sharedMock ?? (await startMockUpstream(options.mock));
  const clock = createClock();
  const store = options.handler?.sessionStore ?? createMemoryStore({ now: clock.now });
  const provider = createProviderHandler(
    handlerOptionsFor(mock, evidence, clock, { sessionStore: store, ...options.handler }),
  );
  const served = await serveHandler(provider.handler);
  const url = (path: string) => `${served.url}${BASE}${path}`;
  return {
    mock,
    served,
    provider,
    store,
    clock,
    evidence,
    url,
    client: (clientOptions = {}) => {
      const client = new TestClient(served.port, evidence, clientOptions.host ?? "127.0.0.1");
      if (clientOptions.page) client.loginNonce = LOGIN_NONCE_OPT_IN;
      return client;
    },
    async close() {
      await served.close();
      if (!options.sharedMock) await mock.close();
    },
  };
}

export interface TestReply {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A browser-like client: keeps the session cookie as Set-Cookie says; records every body. */
export class TestClient {
  cookie: string | undefined;
  /**
   * The pending login's tab secret (x-lwc-login-nonce), kept like a browser tab keeps it once a
   * reply carries one; `LOGIN_NONCE_OPT_IN` before that for a client that opts in.
   */
  loginNonce: string | undefined;
  constructor(
    readonly port: number,
    private readonly evidence: Evidence,
    readonly host: "127.0.0.1" | "localhost" = "127.0.0.1",
    readonly cookieName = "lwc_session",
  ) {}

  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }

  async request(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}): Promise<TestReply> {
    const response = await this.raw(method, path, init);
    const text = await response.text();
    this.evidence.bodies.push(text);
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: <T,>() => JSON.parse(text) as T,
    };
  }

  /** The unread Response (for streaming tests); the caller must record the body it reads. */
  async raw(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit; signal?: AbortSignal } = {}) {
    const headers = new Headers(init.headers);
    if (this.cookie !== undefined && !headers.has("cookie")) headers.set("cookie", `${this.cookieName}=${this.cookie}`);
    if (this.loginNonce !== undefined && !headers.has(LOGIN_NONCE_HEADER)) headers.set(LOGIN_NONCE_HEADER, this.loginNonce);
    const response = await fetch(`${this.origin}${BASE}${path}`, {
      method,
      headers,
      body: init.body,
      signal: init.signal,
      ...(init.body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    this.absorbCookies(response.headers);
    return response;
  }

  private absorbCookies(headers: Headers): void {
    // Only a client that opted in keeps the nonce; a contract client does not know the header.
    const nonce = headers.get(LOGIN_NONCE_HEADER);
    if (nonce !== null && this.loginNonce !== undefined) this.loginNonce = nonce;
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      if (pair!.slice(0, eq).trim() !== this.cookieName) continue;
      const maxAge = /max-age=(\d+)/i.exec(line)?.[1];
      this.cookie = maxAge === "0" ? undefined : decodeURIComponent(pair!.slice(eq + 1));
    }
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request("GET", path, { headers });
  }

  post(path: string, body?: unknown, headers: Record<string, string> = {}) {
    if (body === undefined) return this.request("POST", path, { headers });
    return this.request("POST", path, {
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }
}

/** POST /login, approve at the mock, GET /status: an authenticated client. */
export async function signIn(harness: Pick<Harness, "mock">, client: TestClient, account?: Partial<MockAccount>) {
  const login = await client.post("/login");
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  const { userCode } = login.json<{ userCode: string }>();
  if (!harness.mock.approve(userCode, account)) throw new Error("the mock did not know the user code");
  const status = await client.get("/status");
  const state = status.json<{ status: string }>();
  if (state.status !== "authenticated") throw new Error(`sign-in did not complete: ${status.text}`);
  return status;
}

/**
 * Put into every default prompt: the leak scan fails a test file whose log lines contain it (prompt
 * text must never be logged, whatever upstream quotes back).
 */
export const PROMPT_MARKER = "zq-prompt-marker-3141";

/** A minimal valid /responses body asking for a streamed reply (as the AI SDK's streamText does). */
export function responsesBody(text = `hello there ${PROMPT_MARKER}`, overrides: Record<string, unknown> = {}) {
  return {
    model: "gpt-5.5",
    stream: true,
    input: [{ role: "user", content: [{ type: "input_text", text }] }],
    ...overrides,
  };
}

/**
 * Issued tokens found in any collected body or log line (shown shortened). Each token is also
 * looked for by its random part alone (a JWT's signature, a refresh token without its prefix),
 * so a re-encoded or truncated copy is caught too. A log line with the prompt marker is a leak too.
 */
export function findLeakedTokens(evidence: Evidence): string[] {
  const leaks: string[] = [];
  for (const line of evidence.logs) {
    if (line.message.includes(PROMPT_MARKER)) leaks.push(`prompt text in a log line: ${line.message.slice(0, 80)}…`);
  }
  const haystacks = [...evidence.bodies, ...evidence.logs.map((line) => line.message)];
  for (const token of evidence.issuedTokens) {
    const needles = [token, token.split(".").at(-1)!, token.replace(/^rt_/, "")].filter((n) => n.length >= 20);
    if (haystacks.some((text) => needles.some((needle) => text.includes(needle)))) leaks.push(`${token.slice(0, 12)}…`);
  }
  return leaks;
}

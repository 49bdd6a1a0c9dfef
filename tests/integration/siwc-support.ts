/**
 * Sign in with ChatGPT over real HTTP: the handler with SIWC on against the mock's issuer, a browser
 * that keeps every cookie of 127.0.0.1 and follows nothing by itself, and a record of every call
 * the handler made upstream (so a test can say "no code exchange happened").
 */
import { request as httpRequest } from "node:http";
import { decide } from "@/mock-upstream/siwc/test-flow";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import type { ProviderHandlerOptions, SiwcOptions } from "@/lib/server/options";
import { BASE, createEvidence, startHarness, type Harness } from "./harness";

interface UpstreamCall {
  method: string;
  url: URL;
  /** The form fields of a form POST. */
  form: URLSearchParams | undefined;
  status: number | undefined;
}

export interface SiwcHarness extends Harness {
  calls: UpstreamCall[];
  /** The calls to one SIWC endpoint of the mock, e.g. `token` (`/siwc/api/accounts/oauth/token`). */
  callsTo(endpoint: "token" | "revoke" | "jwks" | "discovery"): UpstreamCall[];
  browser(host?: "127.0.0.1" | "localhost"): SiwcBrowser;
}

const ENDPOINT_PATHS = {
  token: "/siwc/api/accounts/oauth/token",
  revoke: "/siwc/api/accounts/oauth/revoke",
  jwks: "/siwc/.well-known/jwks.json",
  discovery: "/siwc/.well-known/openid-configuration",
};

/**
 * A handler with SIWC on (device too) against a fresh mock; `siwc` and `handler` add or change
 * options. `sharedMock` (with `handler.sessionStore`) makes another instance of the same deployment.
 */
export async function startSiwcHarness(
  options: { siwc?: SiwcOptions; handler?: ProviderHandlerOptions; sharedMock?: MockUpstream } = {},
): Promise<SiwcHarness> {
  const mock = options.sharedMock ?? (await startMockUpstream());
  const evidence = createEvidence();
  const calls: UpstreamCall[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const form = typeof init?.body === "string" && url.pathname.startsWith("/siwc/") ? new URLSearchParams(init.body) : undefined;
    const call: UpstreamCall = { method: init?.method ?? "GET", url, form, status: undefined };
    calls.push(call);
    const response = await fetch(input, init);
    call.status = response.status;
    if (url.pathname === ENDPOINT_PATHS.token && response.ok) {
      const json = (await response.clone().json().catch(() => undefined)) as Record<string, unknown> | undefined;
      for (const field of ["access_token", "refresh_token", "id_token"]) {
        if (typeof json?.[field] === "string") evidence.issuedTokens.add(json[field]);
      }
    }
    return response;
  };
  const harness = await startHarness({
    sharedMock: mock,
    evidence,
    handler: {
      signIn: { device: true, siwc: { issuer: mock.siwcIssuer, apiBase: mock.siwcApiBase, ...options.siwc } },
      ...options.handler,
      upstream: { fetch: recording, ...options.handler?.upstream },
    },
  });
  return {
    ...harness,
    calls,
    callsTo: (endpoint) => calls.filter((call) => call.url.pathname === ENDPOINT_PATHS[endpoint]),
    browser: (host = "127.0.0.1") => new SiwcBrowser(harness, host),
    async close() {
      await harness.close();
      if (!options.sharedMock) await mock.close();
    },
  };
}

interface BrowserReply {
  status: number;
  headers: Headers;
  location: string | null;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/** A browser on this machine: all cookies of the app's host, no automatic redirects. */
export class SiwcBrowser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly harness: Harness,
    readonly host: "127.0.0.1" | "localhost",
  ) {}

  get origin(): string {
    return `http://${this.host}:${this.harness.served.port}`;
  }

  /** GET or POST a path of the app (or an absolute URL of it). */
  async request(method: string, pathOrUrl: string, headers: Record<string, string> = {}): Promise<BrowserReply> {
    const url = pathOrUrl.startsWith("http") ? pathOrUrl : `${this.origin}${pathOrUrl}`;
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { method, headers: { ...(cookie ? { cookie } : {}), ...headers }, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      if (/max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1));
    }
    const text = await response.text();
    this.harness.evidence.bodies.push(text, response.headers.get("location") ?? "");
    return { status: response.status, headers: response.headers, location: response.headers.get("location"), text, json: <T,>() => JSON.parse(text) as T };
  }

  /** GET {api}/siwc/start with this query; the reply as is. */
  start(query = ""): Promise<BrowserReply> {
    return this.request("GET", `${BASE}/siwc/start${query}`);
  }

  /** Start, decide on the mock's page, and return the callback URL the mock sends the browser to. */
  async authorize(action: "approve" | "identity_only" | "decline" = "approve", query = "", fields: Record<string, string> = {}): Promise<{ authorizeUrl: URL; callbackUrl: URL }> {
    const started = await this.start(query);
    if (started.status !== 302 || !started.location) throw new Error(`start: ${started.status} ${started.text}`);
    const authorizeUrl = new URL(started.location);
    return { authorizeUrl, callbackUrl: await decide(authorizeUrl.href, action, fields) };
  }

  /** The whole sign-in: start, approve (or another action), the callback. Returns the callback's reply. */
  async signIn(action: "approve" | "identity_only" | "decline" = "approve", query = ""): Promise<BrowserReply> {
    const { callbackUrl } = await this.authorize(action, query);
    return this.request("GET", callbackUrl.href);
  }

  async session(): Promise<Record<string, unknown>> {
    return (await this.request("GET", `${BASE}/session`)).json();
  }

  post(path: string, headers: Record<string, string> = {}): Promise<BrowserReply> {
    return this.request("POST", `${BASE}${path}`, headers);
  }
}


/** A GET over node:http, which (unlike fetch) may send any Host header. */
export function getWithHeaders(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; text: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, ...(res.headers.location ? { location: res.headers.location } : {}) }));
    });
    req.on("error", reject);
    req.end();
  });
}

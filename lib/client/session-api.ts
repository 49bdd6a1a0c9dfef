import { parsePublicSessionState, type PublicSessionState } from "./session-state";
import { ProviderProxyError, providerProxyErrorFromResponse } from "./provider-proxy-error";
import { normalizeBasePath } from "./base-path";

export interface SessionApiOptions {
  basePath?: string;
  fetch?: typeof fetch;
}

/** Thin calls to the session routes. Non-OK answers throw ProviderProxyError; network failures rethrow fetch's error. */
export interface SessionApi {
  getSession(signal?: AbortSignal): Promise<PublicSessionState>;
  login(signal?: AbortSignal): Promise<PublicSessionState>;
  status(signal?: AbortSignal): Promise<PublicSessionState>;
  logout(signal?: AbortSignal): Promise<PublicSessionState>;
}

export function createSessionApi(options: SessionApiOptions = {}): SessionApi {
  const basePath = normalizeBasePath(options.basePath);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));

  const call = async (method: "GET" | "POST", path: string, signal?: AbortSignal): Promise<PublicSessionState> => {
    const response = await doFetch(`${basePath}${path}`, {
      method,
      credentials: "include",
      cache: "no-store",
      headers: { accept: "application/json" },
      signal,
    });
    if (!response.ok) throw await providerProxyErrorFromResponse(response);
    const parsed = parsePublicSessionState(await response.json().catch(() => null));
    if (!parsed) {
      throw new ProviderProxyError({
        status: response.status,
        code: "invalid_session_response",
        message: "The session service answered with an unexpected shape.",
      });
    }
    return parsed;
  };

  return {
    getSession: (signal) => call("GET", "/session", signal),
    login: (signal) => call("POST", "/login", signal),
    status: (signal) => call("GET", "/status", signal),
    logout: (signal) => call("POST", "/logout", signal),
  };
}

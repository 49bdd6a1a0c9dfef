import { parsePublicSessionState, type PublicSessionState } from "./session-state";
import { ProviderProxyError, providerProxyErrorFromResponse } from "./provider-proxy-error";
import { normalizeBasePath } from "@/lib/shared/base-path";

interface SessionApiOptions {
  basePath?: string;
  fetch?: typeof fetch;
}

/** Thin calls to the session routes. Non-OK answers throw ProviderProxyError; network failures rethrow fetch's error. */
export interface SessionApi {
  getSession(signal?: AbortSignal): Promise<PublicSessionState>;
  login(signal?: AbortSignal): Promise<PublicSessionState>;
  status(signal?: AbortSignal): Promise<PublicSessionState>;
  logout(signal?: AbortSignal): Promise<PublicSessionState>;
  /** POST /siwc/notice: the one-time "You're using your ChatGPT plan" notice was seen (204). */
  dismissPlanNotice(signal?: AbortSignal): Promise<void>;
}

/**
 * The login nonce header (docs/api.md, "The login nonce"). The page opts in: it sends the header on
 * every session call, with the nonce its tab keeps or `new` while it has none. POST /login answers
 * with the login's secret; /login, /status and /session send it back.
 */
const LOGIN_NONCE_HEADER = "x-lwc-login-nonce";
/** What the page sends while its tab holds no nonce (the same value as the server's LOGIN_NONCE_OPT_IN). */
const LOGIN_NONCE_OPT_IN = "new";

/**
 * Keeps the tab's login nonce in sessionStorage (one per tab, survives reloads, not shared with
 * other tabs), or in memory where there is no sessionStorage. The server shows a pending code, and
 * advances the login, only to the tab holding its nonce: a session cookie planted by someone else
 * (with or without a nonce of its own) then reads as signed out, and signing in starts this tab's
 * own login.
 */
function createNonceKeeper(basePath: string) {
  const key = `lwc-login-nonce:${basePath || "/"}`;
  let inMemory: string | null = null;
  const storage = (): Storage | null => {
    try {
      return typeof sessionStorage === "undefined" ? null : sessionStorage;
    } catch {
      return null; // storage blocked by the browser's settings
    }
  };
  return {
    get(): string | null {
      try {
        return storage()?.getItem(key) ?? inMemory;
      } catch {
        return inMemory;
      }
    },
    set(value: string): void {
      inMemory = value;
      try {
        storage()?.setItem(key, value);
      } catch {
        // The in-memory copy still serves this page.
      }
    },
  };
}

export function createSessionApi(options: SessionApiOptions = {}): SessionApi {
  const basePath = normalizeBasePath(options.basePath);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const nonce = createNonceKeeper(basePath);

  const send = async (method: "GET" | "POST", path: string, signal?: AbortSignal): Promise<Response> => {
    const headers: Record<string, string> = { accept: "application/json", [LOGIN_NONCE_HEADER]: nonce.get() ?? LOGIN_NONCE_OPT_IN };
    const response = await doFetch(`${basePath}${path}`, {
      method,
      credentials: "include",
      cache: "no-store",
      headers,
      signal,
    });
    const issued = response.headers.get(LOGIN_NONCE_HEADER);
    if (issued) nonce.set(issued);
    if (!response.ok) throw await providerProxyErrorFromResponse(response);
    return response;
  };

  const call = async (method: "GET" | "POST", path: string, signal?: AbortSignal): Promise<PublicSessionState> => {
    const response = await send(method, path, signal);
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
    dismissPlanNotice: async (signal) => {
      await send("POST", "/siwc/notice", signal);
    },
  };
}

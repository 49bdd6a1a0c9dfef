import { expect } from "vitest";
import type { MockUpstream } from "@/mock-upstream/server";

const COOKIE_NAME = "lwc_session";

/**
 * A client that holds the one session cookie and can talk to any instance. It speaks only the
 * contract (no x-lwc-login-nonce): the cookie alone reuses, shows and completes its login.
 */
export class SessionClient {
  cookie: string | undefined;

  /** `api`: where the API answers (LWC_API_BASE_PATH of the build). */
  constructor(private readonly api = "/api/provider") {}

  async request(baseUrl: string, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set("cookie", `${COOKIE_NAME}=${this.cookie}`);
    const response = await fetch(`${baseUrl}${this.api}${path}`, { ...init, headers });
    this.rememberCookie(response);
    return response;
  }

  async json<T = Record<string, unknown>>(baseUrl: string, path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }> {
    const response = await this.request(baseUrl, path, init);
    return { status: response.status, body: (await response.json()) as T, headers: response.headers };
  }

  /** Device login as a person would do it, approving on the mock; ends authenticated. */
  async signIn(baseUrl: string, mock: MockUpstream, account: { accountId: string; email: string }): Promise<void> {
    const login = await this.json<{ status: string; userCode: string }>(baseUrl, "/login", { method: "POST" });
    expect(login.status).toBe(200);
    expect(login.body.status).toBe("pending");
    expect(mock.approve(login.body.userCode, account)).toBe(true);
    const status = await this.json<{ status: string }>(baseUrl, "/status");
    expect(status.body.status).toBe("authenticated");
  }

  private rememberCookie(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const [name, ...value] = (pair ?? "").split("=");
      if (name?.trim() !== COOKIE_NAME) continue;
      const maxAgeZero = /max-age=0(?!\d)/i.test(header);
      this.cookie = maxAgeZero ? undefined : value.join("=");
    }
  }
}

export function responsesBody(text: string, model = "gpt-5.5"): string {
  return JSON.stringify({
    model,
    stream: true,
    instructions: "Be brief.",
    input: [{ role: "user", content: [{ type: "input_text", text }] }],
  });
}

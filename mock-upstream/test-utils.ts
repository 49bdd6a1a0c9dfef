/** Helpers for the mock's own tests. */
import clientVersionFile from "@/lib/upstream/client-version.json";
import { MOCK_CLIENT_ID } from "./context";
import type { MockUpstream } from "./types";
import type { MockTokenSet } from "./sign-in";

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Parse `event: <type>\ndata: <json>\n\n` frames; throws on anything else. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim().length > 0)
    .map((frame) => {
      const match = /^event: (.+)\ndata: (.+)$/.exec(frame);
      if (!match) throw new Error(`bad SSE frame: ${frame.slice(0, 80)}`);
      return { event: match[1]!, data: JSON.parse(match[2]!) as Record<string, unknown> };
    });
}

export function backendHeaders(tokens: Pick<MockTokenSet, "access_token">, accountId = "acct_demo"): Record<string, string> {
  return {
    authorization: `Bearer ${tokens.access_token}`,
    "chatgpt-account-id": accountId,
    originator: "codex_cli_rs",
    // What our client sends on every backend call; the mock gates models on it like the real backend.
    version: clientVersionFile.clientVersion,
    "content-type": "application/json",
    accept: "text/event-stream",
  };
}

export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-5.5",
    instructions: "You are a helpful assistant.",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello there" }] }],
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    reasoning: { effort: "medium", summary: "auto" },
    ...overrides,
  };
}

export function postResponses(mock: MockUpstream, tokens: MockTokenSet, body: unknown, accountId?: string, signal?: AbortSignal) {
  return fetch(`${mock.codexBaseUrl}/responses`, {
    method: "POST",
    headers: backendHeaders(tokens, accountId),
    body: JSON.stringify(body),
    signal,
  });
}

export function getModels(mock: MockUpstream, tokens: MockTokenSet, query = `?client_version=${clientVersionFile.clientVersion}`, accountId?: string) {
  return fetch(`${mock.codexBaseUrl}/models${query}`, { headers: backendHeaders(tokens, accountId) });
}

export function refresh(mock: MockUpstream, refreshToken: string) {
  return fetch(`${mock.issuer}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id: MOCK_CLIENT_ID, grant_type: "refresh_token", refresh_token: refreshToken }),
  });
}

export function postJson(url: string, body: unknown) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

import { normalizeBasePath } from "@/lib/shared/base-path";
import { readChangesPage, type ChangesPage, type PushBody } from "./history-wire";
import { ProviderProxyError, providerProxyErrorFromResponse } from "./provider-proxy-error";

/**
 * The chat history routes (docs/api.md#chat-history) as the page calls them. A refusal throws
 * ProviderProxyError with the service's status and code (`history_disabled`, `rate_limited` with
 * `retryAfterSeconds`, …); a network failure rethrows fetch's error.
 */
export interface HistoryApi {
  pull(since: number, signal?: AbortSignal): Promise<ChangesPage>;
  push(body: PushBody, signal?: AbortSignal): Promise<PushReply>;
  setInstructions(text: string, rev: number): Promise<void>;
  /** DELETE /history: everything the server keeps for the account. */
  deleteEverything(): Promise<{ conversations: number; messages: number; shares: number }>;
  createShare(conversationId: string, leafId?: string): Promise<ShareLink>;
  listShares(): Promise<ShareLink[]>;
  revokeShare(id: string): Promise<void>;
}

export interface ShareLink {
  id: string;
  conversationId: string;
  createdAt: number;
}

type WriteStatus = "applied" | "unchanged" | "deleted";

interface PushReply {
  cursor: number;
  conversations: { id: string; status: WriteStatus }[];
  messages: { conversationId: string; id: string; status: WriteStatus }[];
}

interface HistoryApiOptions {
  basePath?: string;
  fetch?: typeof fetch;
}

function unexpected(status: number): ProviderProxyError {
  return new ProviderProxyError({ status, code: `http_${status}`, message: "The history service answered with an unexpected shape." });
}

function isShare(value: unknown): value is ShareLink {
  const share = value as Partial<ShareLink> | null;
  return typeof share?.id === "string" && typeof share.conversationId === "string" && typeof share.createdAt === "number";
}

export function createHistoryApi(options: HistoryApiOptions = {}): HistoryApi {
  const basePath = normalizeBasePath(options.basePath);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));

  const send = async (method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> => {
    const response = await doFetch(`${basePath}${path}`, {
      method,
      credentials: "include",
      cache: "no-store",
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    if (!response.ok) throw await providerProxyErrorFromResponse(response);
    return response;
  };
  const json = async (response: Response): Promise<unknown> => response.json().catch(() => undefined);

  return {
    async pull(since, signal) {
      const response = await send("GET", `/history/changes?since=${since}`, undefined, signal);
      const page = readChangesPage(await json(response));
      if (!page) throw unexpected(response.status);
      return page;
    },
    async push(body, signal) {
      const response = await send("POST", "/history/changes", body, signal);
      const reply = (await json(response)) as Partial<PushReply> | undefined;
      if (typeof reply?.cursor !== "number" || !Array.isArray(reply.conversations) || !Array.isArray(reply.messages)) throw unexpected(response.status);
      return reply as PushReply;
    },
    async setInstructions(text, rev) {
      await send("PUT", "/history/instructions", { text, rev });
    },
    async deleteEverything() {
      const reply = (await json(await send("DELETE", "/history"))) as { deleted?: { conversations: number; messages: number; shares: number } } | undefined;
      return reply?.deleted ?? { conversations: 0, messages: 0, shares: 0 };
    },
    async createShare(conversationId, leafId) {
      const response = await send("POST", "/history/shares", leafId ? { conversationId, leafId } : { conversationId });
      const share = await json(response);
      if (!isShare(share)) throw unexpected(response.status);
      return share;
    },
    async listShares() {
      const response = await send("GET", "/history/shares");
      const reply = (await json(response)) as { shares?: unknown[] } | undefined;
      if (!Array.isArray(reply?.shares)) throw unexpected(response.status);
      return reply.shares.filter(isShare);
    },
    async revokeShare(id) {
      await send("DELETE", `/history/shares/${encodeURIComponent(id)}`);
    },
  };
}

import "server-only";
/**
 * HTTP to one session relay: on a unix socket (bwrap) or at a URL (a VM's exposed port, `https://`
 * through Vercel, `http://127.0.0.1:<port>` from a local fake). Every request carries the token as
 * a bearer header, never in the URL, and no Origin header. One keep-alive agent per connection.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Where a relay listens: its unix socket, or the base URL of its exposed port. */
export type RelayAddress = { socketPath: string } | { url: string };

interface RelayRequest {
  /** Resolves with the answer (body unread); rejects on a network failure or abort. */
  response: Promise<IncomingMessage>;
  /** Ends the request and its connection (an event stream being followed, for one). */
  abort(): void;
}

interface RelayConnection {
  request(method: "GET" | "POST", path: string, options?: { headers?: Record<string, string>; body?: string }): RelayRequest;
  /** Ends every connection of this relay connection. */
  close(): void;
}

const MAX_JSON_ANSWER_BYTES = 64 * 1024;

export function connectRelay(address: RelayAddress, token: string): RelayConnection {
  const base = "url" in address ? new URL(address.url) : undefined;
  if (base && base.protocol !== "http:" && base.protocol !== "https:") throw new Error("a relay URL must be http(s)");
  const secure = base?.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const prefix = base ? base.pathname.replace(/\/$/, "") : "";

  return {
    request(method, path, options = {}) {
      const controller = new AbortController();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...options.headers };
      if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
      const target = base
        ? { protocol: base.protocol, hostname: base.hostname.replace(/^\[(.*)\]$/, "$1"), port: base.port || undefined, path: prefix + path }
        : { socketPath: (address as { socketPath: string }).socketPath, path };
      const response = new Promise<IncomingMessage>((resolve, reject) => {
        const send = secure ? httpsRequest : httpRequest;
        const outgoing = send({ ...target, method, headers, agent, signal: controller.signal }, resolve);
        outgoing.once("error", reject);
        outgoing.end(options.body);
      });
      return { response, abort: () => controller.abort() };
    },
    close: () => agent.destroy(),
  };
}

/** A small JSON answer's body; undefined when it is not JSON (or larger than a relay's answers get). */
export async function readJsonAnswer(response: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = "";
  response.setEncoding("utf8");
  for await (const chunk of response) {
    text += chunk as string;
    if (text.length > MAX_JSON_ANSWER_BYTES) {
      response.destroy();
      return undefined;
    }
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

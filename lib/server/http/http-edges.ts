import "server-only";
import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import { runWithConnectionPeer } from "./connection-peer";

/**
 * Requests the framework cannot represent, answered at the HTTP server before it sees them:
 * - a method the Fetch API refuses (TRACE) or does not know (PROPFIND, ...): building its Request
 *   fails, a 500 with a stack trace in the log per request, before any code of ours runs;
 * - a path with a malformed percent-escape (`/api/provider/%ff`): the route matcher throws, a 500.
 * (A Next.js proxy/middleware cannot catch the first, and would buffer request bodies to run.)
 */
export const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const KNOWN = new Set(KNOWN_METHODS);
const PATCHED = Symbol.for("lwc.httpEdgesAnswered");

function plain(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers });
  response.end(text);
}

function hasMalformedEscape(url: string | undefined): boolean {
  try {
    decodeURIComponent((url ?? "/").split("?")[0]!);
    return false;
  } catch {
    return true;
  }
}

/** The plain answer for a request the framework cannot handle, or false to let it through. */
export function answerHttpEdge(request: IncomingMessage, response: ServerResponse): boolean {
  if (!KNOWN.has(request.method ?? "")) {
    request.resume();
    plain(response, 405, "Method Not Allowed", { allow: KNOWN_METHODS.join(", ") });
    return true;
  }
  if (hasMalformedEscape(request.url)) {
    request.resume();
    plain(response, 404, "Not Found");
    return true;
  }
  return false;
}

/**
 * Makes every Node HTTP server of this process answer those requests itself, and handle every other
 * request knowing its connection's peer address (lib/server/http/connection-peer.ts). Idempotent.
 */
export function answerHttpEdgesAtTheServer(): void {
  const prototype = Server.prototype as Server & { [PATCHED]?: true };
  if (prototype[PATCHED]) return;
  const emit = prototype.emit;
  prototype.emit = function emitUnlessAnswered(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "request") return Reflect.apply(emit, this, [event, ...args]) as boolean;
    const request = args[0] as IncomingMessage;
    if (answerHttpEdge(request, args[1] as ServerResponse)) return true;
    return runWithConnectionPeer(request.socket?.remoteAddress, () => Reflect.apply(emit, this, [event, ...args]) as boolean);
  } as Server["emit"];
  prototype[PATCHED] = true;
}

import { Server, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * Methods the Fetch API refuses to put in a Request. Node's HTTP server accepts them, and the
 * framework then fails building its Request: a 500 and a stack trace in the log per request,
 * before any route or proxy of ours runs. They are answered here, at the HTTP server, instead.
 */
const FETCH_FORBIDDEN_METHODS = new Set(["TRACE", "TRACK"]);
const PATCHED = Symbol.for("lwc.forbiddenMethodsRefused");

function refuse(response: ServerResponse): void {
  response.writeHead(405, {
    allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
  });
  response.end("Method Not Allowed");
}

/** Makes every Node HTTP server of this process answer TRACE and TRACK with a plain 405. Idempotent. */
export function refuseFetchForbiddenMethods(): void {
  const prototype = Server.prototype as Server & { [PATCHED]?: true };
  if (prototype[PATCHED]) return;
  const emit = prototype.emit;
  prototype.emit = function emitUnlessForbidden(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse];
      if (FETCH_FORBIDDEN_METHODS.has(request.method ?? "")) {
        request.resume();
        refuse(response);
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server["emit"];
  prototype[PATCHED] = true;
}

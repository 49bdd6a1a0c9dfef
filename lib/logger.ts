import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";

/** Where the handler writes its few log lines. Lines never carry tokens, cookie values, secrets or prompt text. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Every line the handler writes starts with this prefix, so operators can grep for it. */
export const LOG_PREFIX = "[login-with-chatgpt]";

export const consoleLogger: Logger = {
  info: (message) => console.info(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/** `value` when it is a short identifier (an error code or type), else undefined: free text never reaches a log line. */
export function identifierOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && IDENTIFIER.test(value) ? value : undefined;
}

/**
 * A one-line description of an unexpected error for the log: its class name and, when it has one,
 * its code. Never the message: messages can quote header values, URLs, bodies or prompt text.
 */
export function describeErrorForLog(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const name = identifierOrUndefined(error.name) ?? "Error";
  const code = identifierOrUndefined((error as { code?: unknown }).code);
  return code ? `${name} (code=${code})` : name;
}

const requestIdScope = new AsyncLocalStorage<string>();
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = "x-request-id";

/** The caller's `x-request-id` when it is short and plain (a proxy's or load balancer's id), else a new UUID. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get(REQUEST_ID_HEADER)?.trim();
  return incoming && SANE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** Runs `work` with `requestId` as the id that `withRequestIds` loggers append to each line. */
export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return requestIdScope.run(requestId, work);
}

/**
 * `log`, bound to the request id in scope now: for a line written later from a callback the
 * framework runs outside the request's scope (a reply stream's reads).
 */
export function keepRequestId(log: (message: string) => void): (message: string) => void {
  const requestId = requestIdScope.getStore();
  return requestId === undefined ? log : (message) => requestIdScope.run(requestId, () => log(message));
}

/** A logger that ends every line written while handling a request with ` request_id=<id>`. */
export function withRequestIds(logger: Logger): Logger {
  const tag = (message: string) => {
    const id = requestIdScope.getStore();
    return id ? `${message} request_id=${id}` : message;
  };
  return {
    info: (message) => logger.info(tag(message)),
    warn: (message) => logger.warn(tag(message)),
    error: (message) => logger.error(tag(message)),
  };
}

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

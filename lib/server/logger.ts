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

/** A one-line, bounded description of an unexpected error: name and message, never a stack. */
export function describeErrorForLog(error: unknown, maxChars = 200): string {
  if (!(error instanceof Error)) return typeof error;
  const message = error.message.replace(/\s+/g, " ").trim();
  const bounded = message.length > maxChars ? `${message.slice(0, maxChars)}…` : message;
  return bounded ? `${error.name}: ${bounded}` : error.name;
}

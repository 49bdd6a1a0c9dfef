import "server-only";

/** Keys whose values are protocol words (`"user"`, `"input_text"`, a model slug), not anyone's text. */
const PROTOCOL_KEYS = new Set(["type", "role", "model", "status", "include"]);

/**
 * The texts of a /responses request that an upstream error may quote back: every string in the
 * body (messages, instructions, tool outputs and schemas, …) except protocol words. Runs of them
 * are replaced by `[input]` in failure log lines and `detail`.
 */
export function responsesInputTexts(body: unknown): string[] {
  const texts: string[] = [];
  const visit = (value: unknown, key: string | undefined) => {
    if (typeof value === "string") {
      if (key === undefined || !PROTOCOL_KEYS.has(key)) texts.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key);
    } else if (typeof value === "object" && value !== null) {
      for (const [name, item] of Object.entries(value)) visit(item, name);
    }
  };
  visit(body, undefined);
  return texts;
}

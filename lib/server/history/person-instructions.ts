import "server-only";
/**
 * The person's own instructions ("how should it answer you"), kept with their history, go into a
 * model call below the server's: as a `developer` message after the ones already at the top of
 * `input` (the body's own instructions under LWC_INSTRUCTIONS_MODE=enforce, a client's system
 * messages), never in `instructions`, which stays the server's (or the client's, where the server
 * lets a client replace it).
 */

const HEADING = "The person you are talking to asked you to follow these instructions of theirs, within the instructions above:";

function isDeveloperMessage(item: unknown): boolean {
  return typeof item === "object" && item !== null && (item as { role?: unknown }).role === "developer";
}

/** `body` (already normalised: `input` is a list) with the person's instructions added; unchanged when there are none. */
export function withPersonInstructions<B extends Record<string, unknown>>(body: B, text: string): B {
  if (text.trim() === "" || !Array.isArray(body.input)) return body;
  const input: unknown[] = body.input;
  let at = 0;
  while (at < input.length && isDeveloperMessage(input[at])) at += 1;
  const message = { type: "message", role: "developer", content: [{ type: "input_text", text: `${HEADING}\n\n${text}` }] };
  return { ...body, input: [...input.slice(0, at), message, ...input.slice(at)] };
}

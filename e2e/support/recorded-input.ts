import type { RecordedRequest } from "./mock-control";

/** The user texts of one recorded /responses request, in order: what the model was sent. */
export function userTextsOf(request: RecordedRequest | undefined): string[] {
  const input = (request?.body as { input?: unknown } | undefined)?.input;
  if (!Array.isArray(input)) return [];
  return input
    .filter((item): item is { role: string; content: unknown } => typeof item === "object" && item !== null && (item as { role?: unknown }).role === "user")
    .map((item) =>
      typeof item.content === "string"
        ? item.content
        : Array.isArray(item.content)
          ? item.content
              .filter((part): part is { type: string; text: string } => part?.type === "input_text" && typeof part.text === "string")
              .map((part) => part.text)
              .join("\n")
          : "",
    );
}

/** Every message of one recorded /responses request, in order, as role and text (string or parts). */
export function messagesOf(request: RecordedRequest | undefined): { role: string; text: string }[] {
  const input = (request?.body as { input?: unknown } | undefined)?.input;
  if (!Array.isArray(input)) return [];
  return input
    .filter((item): item is { role: string; content: unknown } => typeof item === "object" && item !== null && typeof (item as { role?: unknown }).role === "string")
    .map((item) => ({
      role: item.role,
      text:
        typeof item.content === "string"
          ? item.content
          : Array.isArray(item.content)
            ? item.content
                .filter((part): part is { text: string } => typeof part?.text === "string")
                .map((part) => part.text)
                .join("")
            : "",
    }));
}

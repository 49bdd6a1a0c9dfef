import type { ChatUIMessage } from "./chat-turns";

/** A shared conversation as its read-only page shows it (GET /shared/:id, docs/api.md#share-links). */
export interface SharedConversation {
  title: string;
  createdAt: number;
  messages: ChatUIMessage[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The snapshot the server sent, or undefined when it is not one; a message or part of another shape is left out. */
export function readSharedConversation(body: unknown): SharedConversation | undefined {
  if (!isRecord(body) || typeof body.title !== "string" || typeof body.createdAt !== "number" || !Array.isArray(body.messages)) return undefined;
  const messages: ChatUIMessage[] = [];
  for (const message of body.messages) {
    if (!isRecord(message) || typeof message.id !== "string" || (message.role !== "user" && message.role !== "assistant") || !Array.isArray(message.parts)) continue;
    const parts = message.parts.filter((part): part is ChatUIMessage["parts"][number] => isRecord(part) && typeof part.type === "string");
    messages.push({ id: message.id, role: message.role, parts });
  }
  return { title: body.title, createdAt: body.createdAt, messages };
}

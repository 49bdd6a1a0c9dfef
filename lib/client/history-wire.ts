import type { RemoteConversation, RemoteMessage } from "./conversation-record";
import type { Conversation } from "./conversation-store";
import type { TreeMessage } from "./message-tree";

/**
 * The sync API's bodies as the browser reads and writes them (docs/api.md#chat-history), checked
 * by hand (the chat screen carries no zod of its own for this): a page from the server, and the
 * writes a push carries, each checked as the server will check it so one bad message cannot hold
 * the whole queue back.
 */

/** A conversation of a page: its fields, or its delete. */
type PageConversation = ({ id: string; deleted: false } & RemoteConversation) | { id: string; deleted: true };
type PageMessage = RemoteMessage & { conversationId: string };

export interface ChangesPage {
  cursor: number;
  more: boolean;
  restart?: "cleared" | "unknown_cursor";
  conversations: PageConversation[];
  messages: PageMessage[];
  instructions?: { text: string; rev: number };
}

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The server's limits (docs/api.md#limits). */
export const MAX_PUSH_ITEMS = 200;
/** Under the server's 4,000,000-byte body limit, with room for the request's own brackets. */
export const MAX_PUSH_BYTES = 3_900_000;
const MAX_TITLE_CHARS = 1000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

function readConversation(value: unknown): PageConversation | undefined {
  if (!isRecord(value) || typeof value.id !== "string") return undefined;
  if (value.deleted === true) return { id: value.id, deleted: true };
  const { title, titleEdited, pinned, archived, createdAt, updatedAt, revs } = value;
  if (typeof title !== "string" || typeof titleEdited !== "boolean" || typeof pinned !== "boolean" || typeof archived !== "boolean") return undefined;
  if (!isCount(createdAt) || !isCount(updatedAt) || !isRecord(revs) || !isCount(revs.title) || !isCount(revs.pinned) || !isCount(revs.archived)) return undefined;
  return { id: value.id, deleted: false, title, titleEdited, pinned, archived, createdAt, updatedAt, revs: { title: revs.title, pinned: revs.pinned, archived: revs.archived } };
}

function readMessage(value: unknown): PageMessage | undefined {
  if (!isRecord(value) || typeof value.id !== "string" || typeof value.conversationId !== "string") return undefined;
  const { id, conversationId } = value;
  if (value.deleted === true) return { id, conversationId, deleted: true };
  const { parentId, role, parts, metadata, createdAt, rev } = value;
  if (parentId !== null && typeof parentId !== "string") return undefined;
  if ((role !== "user" && role !== "assistant") || !Array.isArray(parts) || !isCount(createdAt) || !isCount(rev)) return undefined;
  if (metadata !== undefined && !isRecord(metadata)) return undefined;
  return { id, conversationId, deleted: false, parentId, role, parts, ...(metadata ? { metadata } : {}), createdAt, rev };
}

/** A page of GET /history/changes, or undefined when the body is not one; an item of the wrong shape is left out. */
export function readChangesPage(body: unknown): ChangesPage | undefined {
  if (!isRecord(body) || !isCount(body.cursor) || typeof body.more !== "boolean") return undefined;
  if (!Array.isArray(body.conversations) || !Array.isArray(body.messages)) return undefined;
  const page: ChangesPage = {
    cursor: body.cursor,
    more: body.more,
    conversations: body.conversations.map(readConversation).filter((item) => item !== undefined),
    messages: body.messages.map(readMessage).filter((item) => item !== undefined),
  };
  if (body.restart === "cleared" || body.restart === "unknown_cursor") page.restart = body.restart;
  const { instructions } = body;
  if (isRecord(instructions) && typeof instructions.text === "string" && isCount(instructions.rev)) page.instructions = { text: instructions.text, rev: instructions.rev };
  return page;
}

/** A write of the title group (with the times), or of `pinned` or `archived` alone, each with the rev that set it. */
type ConversationWrite =
  | { id: string; rev: number; createdAt: number; updatedAt: number; title: string; titleEdited: boolean }
  | { id: string; rev: number; pinned: boolean }
  | { id: string; rev: number; archived: boolean };

interface MessageWrite {
  conversationId: string;
  id: string;
  parentId: string | null;
  role: "user" | "assistant";
  parts: unknown[];
  metadata?: Record<string, unknown>;
  createdAt: number;
  rev: number;
}

/**
 * The conversation's fields to write, or undefined when the server would refuse its id. The server
 * takes one rev a write for every field group it holds, so each group goes in a write of its own
 * with the rev that set it: a pin sent with a later rename's rev would undo another device's
 * unpin made in between. `pinned` and `archived` go once set (a flag an older version kept
 * without its rev goes with the conversation's time).
 */
export function conversationWrite(conversation: Conversation): ConversationWrite[] | undefined {
  if (!ID.test(conversation.id)) return undefined;
  const { id, createdAt, updatedAt, title, titleEdited, revs } = conversation;
  const writes: ConversationWrite[] = [
    { id, rev: Math.max(1, revs?.title ?? updatedAt), createdAt: Math.max(0, Math.trunc(createdAt)), updatedAt: Math.max(0, Math.trunc(updatedAt)), title: title.slice(0, MAX_TITLE_CHARS), titleEdited },
  ];
  const flagRev = (rev: number | undefined, on: boolean) => Math.trunc(rev ?? (on ? Math.max(1, updatedAt) : 0));
  const pinnedRev = flagRev(revs?.pinned, conversation.pinned === true);
  if (pinnedRev > 0) writes.push({ id, rev: pinnedRev, pinned: conversation.pinned === true });
  const archivedRev = flagRev(revs?.archived, conversation.archived === true);
  if (archivedRev > 0) writes.push({ id, rev: archivedRev, archived: conversation.archived === true });
  return writes;
}

function isWebUrl(value: unknown): boolean {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

/** Whether the server takes this part: the parts the chat shows must have the shape it reads. */
function isPushablePart(part: unknown): boolean {
  if (!isRecord(part) || typeof part.type !== "string" || part.type.length === 0 || part.type.length > 200) return false;
  if (part.type === "text" || part.type === "reasoning") return typeof part.text === "string";
  if (part.type === "file") return typeof part.mediaType === "string" && typeof part.url === "string" && part.url.startsWith("data:");
  if (part.type === "source-url") return isWebUrl(part.url);
  return true;
}

/**
 * The message to write, or undefined when the server would refuse it (a `system` message an old
 * import kept, a damaged part): such a message stays in this browser only.
 */
export function messageWrite(conversationId: string, node: TreeMessage): MessageWrite | undefined {
  const { message, link } = node;
  if (message.role !== "user" && message.role !== "assistant") return undefined;
  if (!ID.test(conversationId) || !ID.test(message.id) || (link.parentId !== null && !ID.test(link.parentId))) return undefined;
  if (!message.parts.every(isPushablePart)) return undefined;
  const metadata = isRecord(message.metadata) ? message.metadata : undefined;
  return {
    conversationId,
    id: message.id,
    parentId: link.parentId,
    role: message.role,
    parts: message.parts,
    ...(metadata ? { metadata } : {}),
    createdAt: Math.max(0, Math.trunc(link.createdAt)),
    rev: Math.max(1, Math.trunc(link.rev)),
  };
}

/** One item of a push, with its size as JSON. */
export type PushItem =
  | { kind: "conversation"; writes: ConversationWrite[] }
  | { kind: "message"; write: MessageWrite }
  | { kind: "delete-conversation"; id: string }
  | { kind: "delete-message"; ref: { conversationId: string; id: string } };

export interface PushBody {
  conversations?: ConversationWrite[];
  messages?: MessageWrite[];
  deletes?: { conversations?: string[]; messages?: { conversationId: string; id: string }[] };
}

/** The request body holding these items. */
export function pushBody(items: readonly PushItem[]): PushBody {
  const body: PushBody = {};
  const deletes: NonNullable<PushBody["deletes"]> = {};
  for (const item of items) {
    if (item.kind === "conversation") (body.conversations ??= []).push(...item.writes);
    else if (item.kind === "message") (body.messages ??= []).push(item.write);
    else if (item.kind === "delete-conversation") (deletes.conversations ??= []).push(item.id);
    else (deletes.messages ??= []).push(item.ref);
  }
  if (deletes.conversations || deletes.messages) body.deletes = deletes;
  return body;
}

/** The JSON size of an item as it will be sent. */
function itemBytes(item: PushItem): number {
  if (item.kind === "conversation") return item.writes.reduce((total, write) => total + new TextEncoder().encode(JSON.stringify(write)).length + 1, 0);
  const value = item.kind === "message" ? item.write : item.kind === "delete-conversation" ? item.id : item.ref;
  return new TextEncoder().encode(JSON.stringify(value)).length + 1;
}

/** How many of the server's items (MAX_PUSH_ITEMS) an item is. */
export function itemCount(item: PushItem): number {
  return item.kind === "conversation" ? item.writes.length : 1;
}

/**
 * Consecutive runs of items that each fit one push (at most MAX_PUSH_ITEMS and MAX_PUSH_BYTES);
 * an item too large for any push on its own comes back apart, in `tooLarge`.
 */
export function packPushes<T>(items: readonly T[], itemOf: (entry: T) => PushItem): { batches: T[][]; tooLarge: T[] } {
  const batches: T[][] = [];
  const tooLarge: T[] = [];
  let current: T[] = [];
  let bytes = 0;
  let count = 0;
  for (const entry of items) {
    const item = itemOf(entry);
    const size = itemBytes(item);
    if (size > MAX_PUSH_BYTES) {
      tooLarge.push(entry);
      continue;
    }
    if (current.length > 0 && (count + itemCount(item) > MAX_PUSH_ITEMS || bytes + size > MAX_PUSH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
      count = 0;
    }
    current.push(entry);
    bytes += size;
    count += itemCount(item);
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}

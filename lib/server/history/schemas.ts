import "server-only";
/**
 * What the history routes accept (docs/api.md#chat-history). A message is the browser's
 * `ChatUIMessage` (the AI SDK's UIMessage): the parts the chat shows must have the shape it reads,
 * an attached file must be a `data:` URL (showing a synced conversation never fetches anything),
 * and a cited page an http(s) URL; other parts and metadata are kept as written.
 */
import { z } from "zod";
import { MAX_INSTRUCTIONS_CHARS, MAX_PULL_LIMIT, MAX_PUSH_ITEMS, MAX_TITLE_CHARS, DEFAULT_PULL_LIMIT } from "@/lib/history/limits";
import type { PushBatch } from "@/lib/history/types";

/** Ids the browsers make (crypto.randomUUID(), the AI SDK's ids): 1-128 characters of A-Z a-z 0-9 _ - . : */
export const historyId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 _ - . :");
/** Epoch milliseconds (or a rev): a whole number from 0 up to 2^53 - 1. */
const epochMs = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const rev = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

function isWebUrl(value: unknown): boolean {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

const part = z.looseObject({ type: z.string().min(1).max(200) }).superRefine((value, context) => {
  const problem = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
  if (value.type === "text" || value.type === "reasoning") {
    if (typeof value.text !== "string") problem("text", "must be a string");
  } else if (value.type === "file") {
    if (typeof value.mediaType !== "string") problem("mediaType", "must be a string");
    if (typeof value.url !== "string" || !value.url.startsWith("data:")) problem("url", "an attached file must be a data: URL");
  } else if (value.type === "source-url") {
    if (!isWebUrl(value.url)) problem("url", "a cited page must be an http or https URL");
  }
});

const conversationWrite = z.strictObject({
  id: historyId,
  rev,
  createdAt: epochMs.optional(),
  updatedAt: epochMs.optional(),
  title: z.string().max(MAX_TITLE_CHARS).optional(),
  titleEdited: z.boolean().optional(),
  pinned: z.boolean().optional(),
  archived: z.boolean().optional(),
});

const messageWrite = z.strictObject({
  conversationId: historyId,
  id: historyId,
  parentId: historyId.nullable(),
  role: z.enum(["user", "assistant"]),
  parts: z.array(part),
  metadata: z.record(z.string(), z.unknown()).optional(),
  createdAt: epochMs,
  rev,
});

const messageRef = z.strictObject({ conversationId: historyId, id: historyId });

export const pushBody = z
  .strictObject({
    conversations: z.array(conversationWrite).optional(),
    messages: z.array(messageWrite).optional(),
    deletes: z.strictObject({ conversations: z.array(historyId).optional(), messages: z.array(messageRef).optional() }).optional(),
  })
  .superRefine((body, context) => {
    const items =
      (body.conversations?.length ?? 0) +
      (body.messages?.length ?? 0) +
      (body.deletes?.conversations?.length ?? 0) +
      (body.deletes?.messages?.length ?? 0);
    if (items > MAX_PUSH_ITEMS) context.addIssue({ code: "custom", message: `holds ${items} items; at most ${MAX_PUSH_ITEMS} a request` });
  })
  .transform(
    (body): PushBatch => ({
      conversations: body.conversations ?? [],
      messages: body.messages ?? [],
      deletedConversations: body.deletes?.conversations ?? [],
      deletedMessages: body.deletes?.messages ?? [],
    }),
  );

export const instructionsBody = z.strictObject({ text: z.string().max(MAX_INSTRUCTIONS_CHARS), rev });

export const shareBody = z.strictObject({ conversationId: historyId, leafId: historyId.optional() });

const queryNumber = (fallback: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === "" ? fallback : Number(value)))
    .pipe(z.number().int().min(0).max(max));

export const changesQuery = z.object({
  since: queryNumber(0, Number.MAX_SAFE_INTEGER),
  limit: queryNumber(DEFAULT_PULL_LIMIT, MAX_PULL_LIMIT).pipe(z.number().min(1)),
});

/** "where: message" for the first problem, never quoting the body. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "it does not have the expected shape";
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}

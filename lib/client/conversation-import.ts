import { z } from "zod";
import { BACKUP_FORMAT, CONVERSATION_FORMAT, EXPORT_VERSION, type ExportedConversation } from "./conversation-export";
import { DOCUMENT_PART_TYPE } from "./document-attachments";

/**
 * Reading a file made by Export (a backup or one conversation) back in. Everything is checked
 * before anything is kept: a file that is not JSON, not ours, from a newer version of the app or
 * damaged is refused as a whole, with a sentence saying which.
 */
export type ImportParse = { ok: true; conversations: ExportedConversation[] } | { ok: false; message: string };

/** Larger files are refused before they are read. */
export const MAX_IMPORT_BYTES = 200 * 1024 * 1024;

const NOTHING_IMPORTED = "Nothing was imported.";

// A part is kept as it was written, but the kinds the chat shows must have the shape it reads, so a
// damaged file cannot break the page each time its conversation opens. An attached file must be a
// data: URL, so showing an imported conversation never fetches anything; a cited page must be an
// http or https URL (the answer links to it).
const string = (value: unknown) => typeof value === "string";
const optionalString = (value: unknown) => value === undefined || typeof value === "string";

function isWebUrl(value: unknown): boolean {
  if (typeof value !== "string" || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

const attachedDocument = z.object({
  name: z.string(),
  kind: z.enum(["text", "pdf"]),
  text: z.string(),
  pages: z.number().int().nonnegative().optional(),
});

const part = z.looseObject({ type: z.string().min(1) }).superRefine((value, context) => {
  const problem = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
  if (value.type === "text" || value.type === "reasoning") {
    if (!string(value.text)) problem("text", "text must be a string");
  } else if (value.type === "file") {
    if (!string(value.mediaType)) problem("mediaType", "mediaType must be a string");
    if (typeof value.url !== "string" || !value.url.startsWith("data:")) problem("url", "an attached file must be a data: URL");
    if (!optionalString(value.filename)) problem("filename", "filename must be a string");
  } else if (value.type === "source-url") {
    if (!isWebUrl(value.url)) problem("url", "a cited page must be an http or https URL");
    if (!optionalString(value.title)) problem("title", "title must be a string");
  } else if (value.type === DOCUMENT_PART_TYPE) {
    const parsed = attachedDocument.safeParse(value.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      context.addIssue({ code: "custom", path: ["data", ...issue.path.map(String)], message: issue.message });
    }
  } else if (value.type === "tool-image_generation" && value.output !== undefined) {
    const output = value.output;
    if (typeof output !== "object" || output === null) problem("output", "output must be an object");
    else if (!optionalString((output as { result?: unknown }).result)) {
      context.addIssue({ code: "custom", path: ["output", "result"], message: "result must be a string" });
    }
  }
});

// What the chat reads from a message's metadata (lib/client/chat-turns.ts) must have the type it
// reads; anything else is kept as written.
const failure = z.looseObject({
  code: z.string(),
  message: z.string(),
  status: z.number().optional(),
  retryAfterSeconds: z.number().optional(),
  model: z.string().optional(),
  usageLimit: z.looseObject({ resetsAt: z.number().optional(), resetsInSeconds: z.number().optional(), planType: z.string().optional() }).optional(),
});

const knownMetadata = {
  failure: failure.optional(),
  failedTurn: z.literal(true).optional(),
  interrupted: z.literal(true).optional(),
  imagesLeftOut: z.looseObject({ model: z.string(), count: z.number() }).optional(),
  model: z.string().optional(),
  createdAt: z.number().optional(),
  source: z.literal("voice").optional(),
  agentAction: z.literal(true).optional(),
};

const answerVersion = z.object({ parts: z.array(part), metadata: z.looseObject(knownMetadata) });

const metadata = z.looseObject({
  ...knownMetadata,
  versions: z.object({ before: z.array(answerVersion), after: z.array(answerVersion) }).optional(),
});

// Any role reads here; only the person's and the model's are kept (`unkeptRole` below).
const message = z.object({
  id: z.string().min(1),
  role: z.string().min(1),
  parts: z.array(part),
  metadata: metadata.optional(),
});

const conversation = z.object({
  id: z.string().min(1).max(200),
  title: z.string().max(1000),
  titleEdited: z.boolean(),
  // Files from before pins and the archive have neither.
  pinned: z.boolean().default(false),
  archived: z.boolean().default(false),
  createdAt: z.number(),
  updatedAt: z.number(),
  messages: z.array(message),
});

const conversationFile = z.object({ format: z.literal(CONVERSATION_FORMAT), version: z.literal(EXPORT_VERSION), conversation });
const backupFile = z.object({ format: z.literal(BACKUP_FORMAT), version: z.literal(EXPORT_VERSION), conversations: z.array(conversation) });

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "it does not have the expected shape";
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** The roles the chat shows and sends; a `system` message would show as an answer and fail every later turn. */
const KEPT_ROLES = new Set(["user", "assistant"]);

/** The sentence for the first message whose role this app does not keep, or undefined. */
function unkeptRole(conversations: readonly { title: string; messages: readonly { role: string }[] }[]): string | undefined {
  for (const { title, messages } of conversations) {
    const other = messages.find((candidate) => !KEPT_ROLES.has(candidate.role));
    if (!other) continue;
    const name = title.length > 80 ? `${title.slice(0, 80)}…` : title || "A conversation";
    return `“${name}” holds a ${other.role.slice(0, 40)} message; this app keeps only your messages and the model’s answers, so it can’t import it. ${NOTHING_IMPORTED}`;
  }
  return undefined;
}

/** Reads the text of an export file; nothing in it is kept unless all of it is valid. */
export function parseImportFile(text: string): ImportParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: `This file isn’t valid JSON. ${NOTHING_IMPORTED}` };
  }
  const format = value !== null && typeof value === "object" ? (value as { format?: unknown }).format : undefined;
  if (format !== CONVERSATION_FORMAT && format !== BACKUP_FORMAT) {
    return { ok: false, message: `This file is not a conversation export from this app (a backup or a conversation saved as JSON). ${NOTHING_IMPORTED}` };
  }
  const version = (value as { version?: unknown }).version;
  if (typeof version === "number" && Number.isInteger(version) && version > EXPORT_VERSION) {
    return {
      ok: false,
      message: `This file was made by a newer version of this app (format ${version}); this version reads format ${EXPORT_VERSION}. ${NOTHING_IMPORTED}`,
    };
  }
  if (format === CONVERSATION_FORMAT) {
    const parsed = conversationFile.safeParse(value);
    if (!parsed.success) return { ok: false, message: `This file looks damaged (${describeIssue(parsed.error)}). ${NOTHING_IMPORTED}` };
    const refused = unkeptRole([parsed.data.conversation]);
    if (refused) return { ok: false, message: refused };
    return { ok: true, conversations: [parsed.data.conversation as ExportedConversation] };
  }
  const parsed = backupFile.safeParse(value);
  if (!parsed.success) return { ok: false, message: `This file looks damaged (${describeIssue(parsed.error)}). ${NOTHING_IMPORTED}` };
  const refused = unkeptRole(parsed.data.conversations);
  if (refused) return { ok: false, message: refused };
  return { ok: true, conversations: parsed.data.conversations as ExportedConversation[] };
}

export interface ImportPlan {
  /** The conversations to add: ids this account does not have, each once. */
  add: ExportedConversation[];
  /** How many were left out because the account (or the file, earlier) already had their id. */
  skipped: number;
}

/** Conversations already present (same id) are skipped, not doubled; so is a repeat within the file. */
export function planImport(existingIds: Iterable<string>, incoming: readonly ExportedConversation[]): ImportPlan {
  const taken = new Set(existingIds);
  const add: ExportedConversation[] = [];
  for (const candidate of incoming) {
    if (taken.has(candidate.id)) continue;
    taken.add(candidate.id);
    add.push(candidate);
  }
  return { add, skipped: incoming.length - add.length };
}

const conversations = (count: number) => `${count} conversation${count === 1 ? "" : "s"}`;

/** The sentence shown after an import. */
export function importSummary(added: number, skipped: number): string {
  if (added === 0 && skipped === 0) return "The file holds no conversations; nothing was imported.";
  if (added === 0) return `Nothing imported: ${conversations(skipped)} ${skipped === 1 ? "was" : "were"} already here (skipped).`;
  const imported = `Imported ${conversations(added)}`;
  if (skipped === 0) return `${imported}.`;
  return `${imported}; ${skipped} already here ${skipped === 1 ? "was" : "were"} skipped.`;
}

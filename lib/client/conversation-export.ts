import { failureOf, generatedImagesOf, messageMetadata, textOf, type ChatUIMessage } from "./chat-turns";
import type { Conversation } from "./conversation-store";
import { documentsOf } from "./document-attachments";

/**
 * Conversations as files, made in the browser: a Markdown transcript to read, and JSON to restore
 * with Import (lib/client/conversation-import.ts). JSON files carry a format name and a version, so
 * a later version of the app can read them and this one can refuse what it does not know.
 */
export const CONVERSATION_FORMAT = "lwc-chat-conversation";
export const BACKUP_FORMAT = "lwc-chat-backup";
/** The version of both file formats that this app writes and reads. */
export const EXPORT_VERSION = 1;

/** A conversation in a file: everything kept, except which account it belonged to. */
export type ExportedConversation = Omit<Conversation, "accountId">;

export interface ConversationFile {
  format: typeof CONVERSATION_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  conversation: ExportedConversation;
}

export interface BackupFile {
  format: typeof BACKUP_FORMAT;
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  conversations: ExportedConversation[];
}

function withoutAccount(conversation: Conversation): ExportedConversation {
  const { id, title, titleEdited, pinned, archived, createdAt, updatedAt, messages } = conversation;
  return { id, title, titleEdited, pinned, archived, createdAt, updatedAt, messages };
}

export function conversationFile(conversation: Conversation, now: Date): ConversationFile {
  return { format: CONVERSATION_FORMAT, version: EXPORT_VERSION, exportedAt: now.toISOString(), conversation: withoutAccount(conversation) };
}

export function backupFile(conversations: Conversation[], now: Date): BackupFile {
  return { format: BACKUP_FORMAT, version: EXPORT_VERSION, exportedAt: now.toISOString(), conversations: conversations.map(withoutAccount) };
}

/** `2026-05-01 09:30 UTC`: the same in every time zone, so a file reads the same wherever it is opened. */
export function formatExportTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A file name from a title: lower case, words joined by hyphens, at most 60 characters. */
export function fileNameFor(title: string, extension: "md" | "json"): string {
  const slug = title
    .normalize("NFKD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return `${slug || "conversation"}.${extension}`;
}

export function backupFileName(now: Date): string {
  return `chats-backup-${now.toISOString().slice(0, 10)}.json`;
}

/** What a message had besides text, as a note: attached images and documents by name, generated images by count. */
function notes(message: ChatUIMessage): string[] {
  const lines: string[] = [];
  for (const part of message.parts) {
    if (part.type !== "file") continue;
    const kind = part.mediaType.startsWith("image/") ? "Image" : "File";
    lines.push(`_[${kind} attached: ${part.filename ?? part.mediaType}]_`);
  }
  for (const document of documentsOf(message)) lines.push(`_[Document attached: ${document.name}]_`);
  const generated = generatedImagesOf(message).filter((image) => !image.partial).length;
  if (generated > 0) lines.push(`_[${generated === 1 ? "Generated image" : `${generated} generated images`}, not included]_`);
  return lines;
}

function block(label: string, message: ChatUIMessage): string[] {
  const text = textOf(message).trim();
  return [label, ...(text ? [text] : []), ...notes(message)];
}

interface Turn {
  question?: ChatUIMessage;
  answers: ChatUIMessage[];
}

function turnsOf(messages: readonly ChatUIMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === "user") turns.push({ question: message, answers: [] });
    else if (message.role === "assistant") {
      if (turns.length === 0) turns.push({ answers: [] });
      turns.at(-1)!.answers.push(message);
    }
  }
  return turns;
}

function turnHeading(number: number, turn: Turn): string {
  const answer = turn.answers[0];
  const { createdAt, model } = answer ? messageMetadata(answer) : {};
  return [`## Turn ${number}`, ...(createdAt !== undefined ? [formatExportTime(createdAt)] : []), ...(model ? [model] : [])].join(" · ");
}

/** The conversation as a Markdown transcript: per turn the question and the answer, with model and time. */
export function conversationMarkdown(conversation: Pick<Conversation, "title" | "messages">): string {
  const sections: string[] = [`# ${conversation.title.replace(/\s+/g, " ").trim()}`];
  turnsOf(conversation.messages).forEach((turn, index) => {
    const lines = [turnHeading(index + 1, turn)];
    if (turn.question) {
      lines.push(...block("**You:**", turn.question));
      const failure = failureOf(turn.question);
      if (failure) lines.push(`_This turn failed: ${failure.message}_`);
    }
    for (const answer of turn.answers) {
      lines.push(...block(messageMetadata(answer).failedTurn || messageMetadata(answer).interrupted ? "**Answer (incomplete):**" : "**Answer:**", answer));
    }
    sections.push(lines.join("\n\n"));
  });
  return `${sections.join("\n\n")}\n`;
}

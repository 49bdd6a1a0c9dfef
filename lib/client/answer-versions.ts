import { messageMetadata, type AnswerVersion, type AnswerVersions, type ChatUIMessage } from "./chat-turns";

/**
 * Regenerate keeps every answer of a turn. The message's own parts are the version shown (so what
 * the next turn sends as context is what is on screen); the others wait in its metadata, in order,
 * as the versions before and after it.
 */
function versionsOf(message: ChatUIMessage): AnswerVersions {
  return messageMetadata(message).versions ?? { before: [], after: [] };
}

function asVersion(message: ChatUIMessage): AnswerVersion {
  const metadata = { ...messageMetadata(message) };
  delete metadata.versions;
  return { parts: message.parts, metadata };
}

function showing(message: ChatUIMessage, version: AnswerVersion, versions: AnswerVersions): ChatUIMessage {
  const hasOthers = versions.before.length + versions.after.length > 0;
  return { ...message, parts: version.parts, metadata: { ...version.metadata, ...(hasOthers ? { versions } : {}) } };
}

/** Which version the message shows (from 0) and how many there are. */
export function versionPosition(message: ChatUIMessage): { index: number; count: number } {
  const { before, after } = versionsOf(message);
  return { index: before.length, count: before.length + 1 + after.length };
}

/** The message showing version `index` (from 0); unchanged when there is no such version. */
export function showVersion(message: ChatUIMessage, index: number): ChatUIMessage {
  const { before, after } = versionsOf(message);
  const all = [...before, asVersion(message), ...after];
  const target = all[index];
  if (!target || index === before.length) return message;
  return showing(message, target, { before: all.slice(0, index), after: all.slice(index + 1) });
}

/** Empties the answer for a new version, which comes after all the others; the old ones are kept. */
export function startNewVersion(message: ChatUIMessage): ChatUIMessage {
  const { before, after } = versionsOf(message);
  return showing(message, { parts: [], metadata: {} }, { before: [...before, asVersion(message), ...after], after: [] });
}

/** Drops the version shown (the newest, which failed) and shows the one before it; unchanged without one. */
export function discardNewestVersion(message: ChatUIMessage): ChatUIMessage {
  const { before, after } = versionsOf(message);
  const previous = before.at(-1);
  if (!previous) return message;
  return showing(message, previous, { before: before.slice(0, -1), after });
}

function hasContent(message: ChatUIMessage): boolean {
  return message.parts.some((part) => (part.type === "text" ? part.text.trim().length > 0 : part.type.startsWith("tool-")));
}

/** A new version that got nothing (stopped, or reloaded, before anything arrived) gives way to the one before. */
export function withoutEmptyNewestVersion(message: ChatUIMessage): ChatUIMessage {
  return hasContent(message) ? message : discardNewestVersion(message);
}

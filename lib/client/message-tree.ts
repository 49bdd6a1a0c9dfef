import { messageMetadata, type AnswerVersion, type ChatUIMessage } from "./chat-turns";

/**
 * A conversation is a tree of messages, as the server keeps it (docs/api.md#the-model): each
 * message names the one it follows (`parentId`), an edited question is a new message beside the
 * one it edits (same parent), a regenerated answer a new message beside the answer it replaces.
 * Messages with one parent are the versions shown as ‹ 1 / 2 ›, oldest first. The chat shows one
 * branch: from the first message down, one child at each step.
 */

/** Where a message sits: the message it follows (null: the first), when it was made, the rev of its last write. */
export interface MessageLink {
  parentId: string | null;
  createdAt: number;
  rev: number;
}

export interface TreeMessage {
  message: ChatUIMessage;
  link: MessageLink;
}

export interface MessageTree {
  nodes: ReadonlyMap<string, TreeMessage>;
  /**
   * Messages deleted (here or on another device), with the parent each had: a message that
   * followed a deleted one follows that one's parent.
   */
  removed: ReadonlyMap<string, string | null>;
}

export const EMPTY_TREE: MessageTree = { nodes: new Map(), removed: new Map() };

/** The key of the first messages' level. */
const ROOT = "\u0000";

function isEarlier(a: TreeMessage, b: TreeMessage): boolean {
  return a.link.createdAt < b.link.createdAt || (a.link.createdAt === b.link.createdAt && a.message.id < b.message.id);
}

/** Only the stream's bookkeeping (a step start, reasoning, blank text): not a word of an answer. */
export function nothingArrived(message: ChatUIMessage): boolean {
  return message.parts.every((part) => part.type === "step-start" || part.type === "reasoning" || (part.type === "text" && !part.text.trim()));
}

/**
 * The parent a message is shown under: its own, or, when that was deleted, the deleted one's (and
 * so on up). A parent this browser never saw (deleted before it synced) gives way to the newest
 * message made before this one, the place it was written in.
 */
function shownParent(tree: MessageTree, node: TreeMessage): string | null {
  let parent = node.link.parentId;
  const seen = new Set<string>();
  while (parent !== null && !tree.nodes.has(parent)) {
    if (!tree.removed.has(parent) || seen.has(parent)) return newestBefore(tree, node);
    seen.add(parent);
    parent = tree.removed.get(parent) ?? null;
  }
  return parent;
}

function newestBefore(tree: MessageTree, node: TreeMessage): string | null {
  let best: TreeMessage | undefined;
  for (const other of tree.nodes.values()) {
    if (isEarlier(other, node) && (!best || isEarlier(best, other))) best = other;
  }
  return best?.message.id ?? null;
}

/**
 * An answer with no word yet and nothing after it: one still on its way on another device or tab,
 * or one whose page closed before anything arrived. It is not a version of its own.
 */
function isHollow(node: TreeMessage, hasChildren: boolean): boolean {
  return node.message.role === "assistant" && !hasChildren && nothingArrived(node.message);
}

/** Each level's messages (by shown parent), oldest first, without hollow answers. */
function childrenOf(tree: MessageTree): Map<string, TreeMessage[]> {
  const all = new Map<string, TreeMessage[]>();
  const parents = new Set<string>();
  for (const node of tree.nodes.values()) {
    const parent = shownParent(tree, node);
    if (parent !== null) parents.add(parent);
    const key = parent ?? ROOT;
    const level = all.get(key);
    if (level) level.push(node);
    else all.set(key, [node]);
  }
  for (const [key, nodes] of all) {
    const kept = nodes.filter((node) => !isHollow(node, parents.has(node.message.id))).sort((a, b) => (isEarlier(a, b) ? -1 : 1));
    all.set(key, kept);
  }
  return all;
}

/**
 * The branch to show: from the first message down, at each step the child on `preferred` (the
 * branch shown so far), else the newest one (so what another device added after it shows too).
 */
export function branchPath(tree: MessageTree, preferred: readonly string[], children = childrenOf(tree)): ChatUIMessage[] {
  return descend(children, ROOT, new Set(preferred));
}

function descend(children: Map<string, TreeMessage[]>, from: string, preferred: ReadonlySet<string>): ChatUIMessage[] {
  const path: ChatUIMessage[] = [];
  const visited = new Set<string>();
  let key = from;
  for (;;) {
    const level = children.get(key) ?? [];
    const next = level.find((node) => preferred.has(node.message.id)) ?? level.at(-1);
    if (!next || visited.has(next.message.id)) return path;
    visited.add(next.message.id);
    path.push(next.message);
    key = next.message.id;
  }
}

/** The tree with the branch on screen in it: a message new to it follows the one before it on the branch. */
export function withPath(tree: MessageTree, path: readonly ChatUIMessage[], now: number): MessageTree {
  const nodes = new Map(tree.nodes);
  let parentId: string | null = null;
  let parentCreatedAt = -Infinity;
  for (const message of path) {
    if (tree.removed.has(message.id)) continue;
    const found = nodes.get(message.id);
    if (found) {
      if (found.message !== message) nodes.set(message.id, { ...found, message });
    } else {
      const createdAt = Math.max(messageMetadata(message).createdAt ?? now, parentCreatedAt + 1);
      nodes.set(message.id, { message, link: { parentId, createdAt, rev: now } });
    }
    parentId = message.id;
    parentCreatedAt = nodes.get(message.id)!.link.createdAt;
  }
  return { nodes, removed: tree.removed };
}

/** The tree without these messages; what followed them follows their parent. */
export function withoutMessages(tree: MessageTree, ids: Iterable<string>): MessageTree {
  const nodes = new Map(tree.nodes);
  const removed = new Map(tree.removed);
  for (const id of ids) {
    const found = nodes.get(id);
    if (!found) continue;
    nodes.delete(id);
    removed.set(id, found.link.parentId);
  }
  return { nodes, removed };
}

export interface VersionPosition {
  /** Which version is shown, from 0, oldest first. */
  index: number;
  count: number;
}

/** For each message of the branch that has other versions: its position among them. */
export function versionPositions(tree: MessageTree, path: readonly ChatUIMessage[], now: number): Map<string, VersionPosition> {
  const children = childrenOf(withPath(tree, path, now));
  const positions = new Map<string, VersionPosition>();
  path.forEach((message, index) => {
    const level = children.get(path[index - 1]?.id ?? ROOT) ?? [];
    const at = level.findIndex((node) => node.message.id === message.id);
    if (at >= 0 && level.length > 1) positions.set(message.id, { index: at, count: level.length });
  });
  return positions;
}

/**
 * The branch with version `index` of the message `messageId` shown: the same messages before it,
 * then that version and, below it, the newest messages that follow it.
 */
export function showVersion(tree: MessageTree, path: readonly ChatUIMessage[], messageId: string, index: number, now: number): ChatUIMessage[] {
  const at = path.findIndex((message) => message.id === messageId);
  if (at < 0) return [...path];
  const full = withPath(tree, path, now);
  const children = childrenOf(full);
  const target = (children.get(path[at - 1]?.id ?? ROOT) ?? [])[index];
  if (!target) return [...path];
  return [...path.slice(0, at), target.message, ...descend(children, target.message.id, new Set())];
}

/** Whether the branch shows the same messages with the same content. */
export function sameBranch(a: readonly ChatUIMessage[], b: readonly ChatUIMessage[]): boolean {
  return a.length === b.length && a.every((message, index) => sameMessage(message, b[index]!));
}

/** The same message with the same content (ids, role, parts and metadata). */
export function sameMessage(a: ChatUIMessage, b: ChatUIMessage): boolean {
  if (a === b) return true;
  return (
    a.id === b.id &&
    a.role === b.role &&
    JSON.stringify(a.parts) === JSON.stringify(b.parts) &&
    JSON.stringify(a.metadata ?? null) === JSON.stringify(b.metadata ?? null)
  );
}

/**
 * A conversation kept before messages had parents: its messages in order, an answer's other
 * versions (regenerate used to keep them in its metadata) becoming messages beside it. Their ids
 * are made from the answer's, so every tab and device that reads the same conversation makes the
 * same ones. `startedAt` dates the messages that carry no time of their own, a second apart.
 */
export function treeFromLinear(messages: readonly ChatUIMessage[], startedAt: number): { tree: MessageTree; path: ChatUIMessage[] } {
  const nodes = new Map<string, TreeMessage>();
  const path: ChatUIMessage[] = [];
  let parentId: string | null = null;
  messages.forEach((stored, index) => {
    const { versions, ...metadata } = messageMetadata(stored);
    const message: ChatUIMessage = versions ? { ...stored, metadata } : stored;
    const createdAt = Math.max(metadata.createdAt ?? 0, startedAt + index * 1000);
    const rev = createdAt;
    const sibling = (version: AnswerVersion, offset: number, position: number): TreeMessage => ({
      message: { id: `${stored.id}.v${position}`, role: stored.role, parts: version.parts, metadata: version.metadata },
      link: { parentId, createdAt: createdAt + offset, rev },
    });
    const before = versions?.before ?? [];
    before.forEach((version, k) => {
      const node = sibling(version, k - before.length, k);
      nodes.set(node.message.id, node);
    });
    (versions?.after ?? []).forEach((version, k) => {
      const node = sibling(version, k + 1, before.length + 1 + k);
      nodes.set(node.message.id, node);
    });
    nodes.set(message.id, { message, link: { parentId, createdAt, rev } });
    path.push(message);
    parentId = message.id;
  });
  return { tree: { nodes, removed: new Map() }, path };
}

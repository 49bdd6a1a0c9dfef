import { isFailedMessage, textOf, type ChatUIMessage } from "./chat-turns";
import { titleFromText, type Conversation } from "./conversation-store";
import { branchPath, EMPTY_TREE, sameMessage, treeFromLinear, withoutMessages, type MessageLink, type MessageTree, type TreeMessage } from "./message-tree";

/**
 * A kept conversation as a tree of messages, and the two ways it changes: a save of this tab
 * (the branch on screen) and changes from elsewhere (another tab's save, the server's pull). Both
 * merge by message id, never replacing the conversation: what another tab or device added stays.
 */

/** The conversation's messages as a tree, and the branch it shows. */
export function treeOfConversation(conversation: Conversation): { tree: MessageTree; path: ChatUIMessage[] } {
  const { links, messages, otherMessages = [], removedMessages = {} } = conversation;
  if (!links) return treeFromLinear(messages, conversation.createdAt);
  const nodes = new Map<string, TreeMessage>();
  let parentId: string | null = null;
  for (const message of messages) {
    nodes.set(message.id, { message, link: links[message.id] ?? { parentId, createdAt: conversation.createdAt, rev: 1 } });
    parentId = message.id;
  }
  for (const message of otherMessages) {
    const link = links[message.id];
    if (link) nodes.set(message.id, { message, link });
  }
  return { tree: { nodes, removed: new Map(Object.entries(removedMessages)) }, path: messages };
}

/** The conversation keeping `tree`, showing `path`. */
function conversationWithTree(conversation: Conversation, tree: MessageTree, path: readonly ChatUIMessage[]): Conversation {
  const onPath = new Set(path.map((message) => message.id));
  const links: Record<string, MessageLink> = {};
  const otherMessages: ChatUIMessage[] = [];
  for (const [id, node] of tree.nodes) {
    links[id] = node.link;
    if (!onPath.has(id)) otherMessages.push(node.message);
  }
  return { ...conversation, messages: [...path], otherMessages, links, removedMessages: Object.fromEntries(tree.removed) };
}

/**
 * The title that follows the conversation's first question as it was first asked: an edit of it, or
 * another version shown, does not rename the conversation.
 */
function titleFor(tree: MessageTree, path: readonly ChatUIMessage[]): string {
  let first: TreeMessage | undefined;
  for (const node of tree.nodes.values()) {
    if (node.link.parentId !== null || node.message.role !== "user") continue;
    if (!first || node.link.createdAt < first.link.createdAt) first = node;
  }
  const question = first?.message ?? path.find((message) => message.role === "user");
  return titleFromText(question ? textOf(question) : "");
}

/** Whether the kept title stays as it is: the conversation had an answer, and a title of words. */
function titleSettled(stored: Conversation, tree: MessageTree): boolean {
  if (stored.title === titleFromText("")) return false;
  for (const node of tree.nodes.values()) if (node.message.role === "assistant" && !isFailedMessage(node.message)) return true;
  return false;
}

/** What a tab saves: the branch on screen, the conversation's title and start, and messages it took out for good. */
export interface LocalSave {
  path: readonly ChatUIMessage[];
  title: string;
  titleEdited: boolean;
  createdAt: number;
  /** Messages taken out for good (a retried or removed failed turn, a failed new version). */
  removedIds: readonly string[];
}

/** What a save changed, for the server. */
interface SaveChanges {
  /** Messages written (new, or with new content). */
  messages: string[];
  deletedMessages: string[];
  /** The conversation is new, or its title changed. */
  conversation: boolean;
}

/**
 * A tab's save merged into the kept conversation: messages new to it join the tree after the one
 * before them on the branch; a message with new content gets a higher rev; messages that left the
 * branch (an earlier version, another tab's turns) stay. Undefined when nothing changed.
 */
export function mergeLocalSave(
  stored: Conversation | undefined,
  ids: { accountId: string; id: string },
  save: LocalSave,
  now: number,
): { conversation: Conversation; changes: SaveChanges } | undefined {
  const before = stored ? treeOfConversation(stored) : { tree: EMPTY_TREE, path: [] };
  const deletedMessages = save.removedIds.filter((id) => before.tree.nodes.has(id));
  const tree = withoutMessages(before.tree, deletedMessages);
  const nodes = new Map(tree.nodes);
  const written: string[] = [];
  let parentId: string | null = null;
  let parentCreatedAt = -Infinity;
  for (const message of save.path) {
    if (tree.removed.has(message.id)) continue;
    const found = nodes.get(message.id);
    if (!found) {
      // Never before the message it follows (the order a device that does not know the parent goes by).
      const createdAt = Math.max(createdAtOf(message, now), parentCreatedAt + 1);
      nodes.set(message.id, { message, link: { parentId, createdAt, rev: now } });
      written.push(message.id);
    } else if (!sameMessage(found.message, message)) {
      nodes.set(message.id, { message, link: { ...found.link, rev: Math.max(now, found.link.rev + 1) } });
      written.push(message.id);
    }
    parentId = message.id;
    parentCreatedAt = nodes.get(message.id)!.link.createdAt;
  }
  const merged: MessageTree = { nodes, removed: tree.removed };
  const path = branchPath(merged, save.path.map((message) => message.id));

  // A title the person gave (here or on another device) stays; otherwise it follows the first
  // question until the conversation has an answer: then a title may be generated for it, here or
  // on another device, and the one kept stays.
  const titleEdited = stored?.titleEdited === true || save.titleEdited;
  const title = stored?.titleEdited ? stored.title : save.titleEdited ? save.title : stored && titleSettled(stored, before.tree) ? stored.title : titleFor(merged, path);
  const titleChanged = !stored || stored.title !== title || stored.titleEdited !== titleEdited;
  const pathChanged = !stored || stored.messages.length !== path.length || stored.messages.some((message, index) => message.id !== path[index]!.id);
  if (!titleChanged && !pathChanged && written.length === 0 && deletedMessages.length === 0 && stored?.links) return undefined;

  const base: Conversation = stored ?? { id: ids.id, accountId: ids.accountId, title, titleEdited, pinned: false, archived: false, createdAt: save.createdAt, updatedAt: now, messages: [] };
  const conversation = conversationWithTree(
    {
      ...base,
      title,
      titleEdited,
      updatedAt: written.length > 0 || deletedMessages.length > 0 ? Math.max(now, base.updatedAt) : base.updatedAt,
      revs: titleChanged ? { ...base.revs, title: now } : base.revs,
    },
    merged,
    path,
  );
  return { conversation, changes: { messages: written, deletedMessages, conversation: titleChanged } };
}

function createdAtOf(message: ChatUIMessage, now: number): number {
  const createdAt = (message.metadata as { createdAt?: unknown } | undefined)?.createdAt;
  return typeof createdAt === "number" && Number.isFinite(createdAt) ? createdAt : now;
}

/** A conversation's fields as the server sends them. */
export interface RemoteConversation {
  title: string;
  titleEdited: boolean;
  pinned: boolean;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  revs: { title: number; pinned: number; archived: number };
}

/** A message as the server sends it, or its delete. */
export type RemoteMessage =
  | { id: string; deleted: true }
  | { id: string; deleted: false; parentId: string | null; role: "user" | "assistant"; parts: unknown[]; metadata?: Record<string, unknown>; createdAt: number; rev: number };

/**
 * Changes from elsewhere merged into the kept conversation: a message replaces this one's copy only
 * with a higher rev, a delete takes it out (what followed it follows its parent), each field group
 * of the conversation takes the server's value when its rev is higher. A message this browser
 * deleted stays deleted. The branch shown stays where it was, following what was added below it.
 * Undefined when nothing changed.
 */
export function applyRemote(
  stored: Conversation | undefined,
  ids: { accountId: string; id: string },
  remote: { conversation?: RemoteConversation; messages: readonly RemoteMessage[] },
): Conversation | undefined {
  const before = stored ? treeOfConversation(stored) : { tree: EMPTY_TREE, path: [] };
  let tree = before.tree;
  let changed = !stored;
  const nodes = new Map(tree.nodes);
  const deleted: string[] = [];
  for (const message of remote.messages) {
    if (message.deleted) {
      if (nodes.has(message.id)) deleted.push(message.id);
      continue;
    }
    if (tree.removed.has(message.id)) continue;
    const found = nodes.get(message.id);
    if (found && found.link.rev >= message.rev) continue;
    const { id, role, parts, metadata } = message;
    const shown: ChatUIMessage = { id, role, parts: parts as ChatUIMessage["parts"], ...(metadata ? { metadata } : {}) };
    nodes.set(id, { message: shown, link: { parentId: message.parentId, createdAt: message.createdAt, rev: message.rev } });
    changed = true;
  }
  tree = withoutMessages({ nodes, removed: tree.removed }, deleted);
  changed ||= deleted.length > 0;

  const fields = remote.conversation ? mergeFields(stored, remote.conversation) : undefined;
  if (fields) changed = true;
  if (!changed) return undefined;

  const path = branchPath(tree, before.path.map((message) => message.id));
  const times = [...tree.nodes.values()].map((node) => node.link.createdAt);
  const base: Conversation = stored ?? {
    id: ids.id,
    accountId: ids.accountId,
    title: "",
    titleEdited: false,
    pinned: false,
    archived: false,
    createdAt: times.length > 0 ? Math.min(...times) : Date.now(),
    updatedAt: times.length > 0 ? Math.max(...times) : Date.now(),
    messages: [],
    revs: {},
  };
  const merged: Conversation = { ...base, ...fields };
  // A title nobody set (the server's "New chat" for a conversation known from its messages) follows the first question.
  if (!merged.titleEdited && !(merged.revs?.title)) merged.title = titleFor(tree, path);
  return conversationWithTree(merged, tree, path);
}

/** The conversation's fields a remote change sets (each group by its rev), or undefined when none. */
function mergeFields(stored: Conversation | undefined, remote: RemoteConversation): Partial<Conversation> | undefined {
  const revs = { title: 0, pinned: 0, archived: 0, ...stored?.revs };
  const fields: Partial<Conversation> = {};
  if (remote.revs.title > revs.title || (!stored && remote.revs.title > 0)) {
    fields.title = remote.title;
    fields.titleEdited = remote.titleEdited;
    revs.title = remote.revs.title;
  }
  if (remote.revs.pinned > revs.pinned) {
    fields.pinned = remote.pinned;
    revs.pinned = remote.revs.pinned;
  }
  if (remote.revs.archived > revs.archived) {
    fields.archived = remote.archived;
    revs.archived = remote.revs.archived;
  }
  if (!stored) fields.createdAt = remote.createdAt;
  if (remote.updatedAt > (stored?.updatedAt ?? 0)) fields.updatedAt = remote.updatedAt;
  if (Object.keys(fields).length === 0) return undefined;
  return { ...fields, revs };
}

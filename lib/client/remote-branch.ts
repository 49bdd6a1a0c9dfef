import type { ChatUIMessage } from "./chat-turns";
import { messagesAfterReload } from "./interrupted-answers";
import { branchPath, type MessageTree, type TreeMessage } from "./message-tree";

/**
 * An open conversation meets the kept copy another tab or device changed: the messages on screen
 * take the kept content unless this tab changed them since that was written (`changedAt`: when
 * this tab last changed each message), a message deleted elsewhere goes, and the branch shown
 * stays where it was, going on with what was added below it. What comes back is made ready to
 * show as after a reload (lib/client/interrupted-answers).
 */
export function branchAfterRemoteChange(
  kept: MessageTree,
  shown: readonly ChatUIMessage[],
  changedAt: ReadonlyMap<string, number>,
): { tree: MessageTree; path: ChatUIMessage[] } {
  const nodes = new Map<string, TreeMessage>(kept.nodes);
  let parentId: string | null = null;
  let parentCreatedAt = -Infinity;
  for (const message of shown) {
    if (kept.removed.has(message.id)) continue;
    const node = nodes.get(message.id);
    const mine = changedAt.get(message.id);
    if (!node) {
      // Not kept yet (its save is on its way): it stays where it is on screen.
      nodes.set(message.id, { message, link: { parentId, createdAt: Math.max(Date.now(), parentCreatedAt + 1), rev: 0 } });
    } else if (mine !== undefined && mine >= node.link.rev) {
      nodes.set(message.id, { ...node, message });
    }
    parentId = message.id;
    parentCreatedAt = nodes.get(message.id)!.link.createdAt;
  }
  const tree = { nodes, removed: kept.removed };
  return { tree, path: messagesAfterReload(branchPath(tree, shown.map((message) => message.id))) };
}

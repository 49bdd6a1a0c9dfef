/**
 * What one tab tells the account's other tabs in this browser (BroadcastChannel): which
 * conversations it changed in the browser's copy (they read them again at once), and that the
 * history settings changed. Nothing of a conversation travels here, only ids.
 */
export type TabMessage =
  | { type: "changed"; conversationIds: string[] }
  /** Every conversation may have changed (the server's copy was deleted, and with it this browser's). */
  | { type: "reload" }
  | { type: "settings" };

export interface TabChannel {
  post(message: TabMessage): void;
  close(): void;
}

function isTabMessage(value: unknown): value is TabMessage {
  const message = value as Partial<TabMessage> | null;
  if (message?.type === "settings" || message?.type === "reload") return true;
  return message?.type === "changed" && Array.isArray(message.conversationIds) && message.conversationIds.every((id) => typeof id === "string");
}

/** The account's channel; a browser without BroadcastChannel gets one that says nothing. */
export function openTabChannel(accountId: string, onMessage: (message: TabMessage) => void): TabChannel {
  if (typeof BroadcastChannel === "undefined") return { post() {}, close() {} };
  const channel = new BroadcastChannel(`lwc-chat:${accountId}`);
  channel.onmessage = (event: MessageEvent) => {
    if (isTabMessage(event.data)) onMessage(event.data);
  };
  return {
    post(message) {
      channel.postMessage(message);
    },
    close() {
      channel.close();
    },
  };
}

/** Runs `task` while no other tab of this browser runs one under the same name (Web Locks), or at once without them. */
export function oneTabAtATime<T>(name: string, task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  return locks ? (locks.request(name, task) as Promise<T>) : task();
}

import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";

/**
 * Conversations written straight into the browser's IndexedDB (the app's own database `lwc-chat`,
 * store `conversations`, keyed by [accountId, id]), as an earlier session would have left them.
 * Quicker than chatting through many turns; the tests then reload so the app reads them. The types
 * are loose on purpose: a test may store what an older version of the app let through.
 */
interface StoredMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: ({ type: "text"; text: string } | { type: string; [field: string]: unknown })[];
  metadata?: Record<string, unknown>;
}

export interface StoredConversation {
  id: string;
  title: string;
  titleEdited: boolean;
  createdAt: number;
  updatedAt: number;
  messages: StoredMessage[];
}

/** A conversation of question/answer turns; `updatedAt` orders the list (newest first). */
export function storedConversation(title: string, turns: [question: string, answer: string][], updatedAt = Date.now()): StoredConversation {
  const messages = turns.flatMap(([question, answer]): StoredMessage[] => [
    { id: randomUUID(), role: "user", parts: [{ type: "text", text: question }] },
    { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: answer }] },
  ]);
  return { id: randomUUID(), title, titleEdited: false, createdAt: updatedAt - 60_000, updatedAt, messages };
}

/** Writes conversations for `accountId` (the app must have opened its database already: sign in first). */
export async function storeConversations(page: Page, accountId: string, conversations: StoredConversation[]): Promise<void> {
  await page.evaluate(
    ([account, records]) =>
      new Promise<void>((resolve, reject) => {
        const request = indexedDB.open("lwc-chat");
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const tx = db.transaction("conversations", "readwrite");
          for (const record of records) tx.objectStore("conversations").put({ ...record, accountId: account });
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    [accountId, conversations] as const,
  );
}

/** The ids of the account's conversations in IndexedDB right now. */
export function storedConversationIds(page: Page, accountId: string): Promise<string[]> {
  return page.evaluate(
    (account) =>
      new Promise<string[]>((resolve, reject) => {
        const request = indexedDB.open("lwc-chat");
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const db = request.result;
          const all = db.transaction("conversations").objectStore("conversations").index("byAccount").getAll(account);
          all.onsuccess = () => {
            resolve((all.result as { id: string }[]).map((record) => record.id).sort());
            db.close();
          };
          all.onerror = () => reject(all.error);
        };
      }),
    accountId,
  );
}

/** Sentences to fill an answer so a conversation is long enough to scroll. */
export function filler(topic: string, sentences = 6): string {
  return Array.from({ length: sentences }, (_, index) => `Point ${index + 1} about ${topic} comes with a few words of explanation.`).join(" ");
}

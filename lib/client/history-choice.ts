import { readStored, removeStored, writeStored } from "./local-preferences";

/**
 * Where the person wants this browser's chats kept, and whether they have been told (both kept in
 * localStorage, so "forget this device" forgets them too). With history on the server, a person
 * can still keep a browser's chats on that device only: it then neither sends nor reads any.
 */
export type HistoryPlace =
  /** The server keeps them: every device and tab of the account syncs. */
  | "server"
  /** History is on, but this person keeps this browser's chats on this device only. */
  | "device"
  /** The server keeps no chats (LWC_CHAT_HISTORY=browser, or no lasting database): the browser does, as before. */
  | "browser";

const choiceKey = (accountId: string) => `lwc:history-place:${accountId}`;
const toldKey = (accountId: string) => `lwc:history-told:${accountId}`;

/** Where this browser's chats are kept, from the session's `history` and the person's choice on this device. */
export function historyPlace(serverHistory: "server" | "browser" | undefined, accountId: string): HistoryPlace {
  if (serverHistory !== "server") return "browser";
  return readStored(choiceKey(accountId)) === "device" ? "device" : "server";
}

export function chooseHistoryPlace(accountId: string, place: "server" | "device"): void {
  if (place === "device") writeStored(choiceKey(accountId), "device");
  else removeStored(choiceKey(accountId));
}

/** The one line saying where chats are kept was seen since this sign-in (its first chat was sent, or it was dismissed). */
export function wasToldWhereChatsAre(accountId: string): boolean {
  return readStored(toldKey(accountId)) !== null;
}

export function rememberToldWhereChatsAre(accountId: string): void {
  writeStored(toldKey(accountId), "1");
}

/** Signing out: the next sign-in's first chat says it again. */
export function forgetToldWhereChatsAre(accountId: string): void {
  removeStored(toldKey(accountId));
}

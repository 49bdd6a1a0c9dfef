import "server-only";
/**
 * Requests for the instance that hosts a live session, from the instance a request landed on: a
 * confirmation, a hang-up, a sign-out. The sender appends to the session's inbox and waits for the
 * reply; the host takes the inbox whole on each poll and writes one reply per request.
 */
import { randomBytes } from "node:crypto";
import { inboxReplyKey, sessionInboxKey } from "./keys";
import type { ToolAccount } from "../types";
import { getSealed, openSealed, putSealed, updateSealed, type SealedStore } from "./sealed-store";

/** How long a request or its reply waits to be read. */
const INBOX_TTL_MS = 30_000;
/** More requests than this waiting for one session: the host is not reading them, the sender is refused. */
const MAX_WAITING = 32;
const REPLY_POLL_MS = 100;

type InboxRequest =
  | { kind: "confirm"; callId: string; approved: boolean; account: ToolAccount & { loginId: string } }
  | { kind: "close"; reason: string }
  /** Hand the session off (where its sandbox can): the instance serving its event stream takes it over. */
  | { kind: "hand_off" }
  | { kind: "touch" };

type Envelope = InboxRequest & { requestId: string };

export class HostDidNotAnswerError extends Error {
  constructor() {
    super("the instance hosting the live session did not answer");
    this.name = "HostDidNotAnswerError";
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `request` to the session's host and waits up to `timeoutMs` for its reply (HostDidNotAnswerError after). */
export async function askHost(shared: SealedStore, sessionId: string, request: InboxRequest, timeoutMs: number): Promise<unknown> {
  const requestId = randomBytes(12).toString("base64url");
  await updateSealed(shared, sessionInboxKey(sessionId), INBOX_TTL_MS, (value) => {
    const waiting = Array.isArray(value) ? (value as Envelope[]) : [];
    if (waiting.length >= MAX_WAITING) throw new HostDidNotAnswerError();
    return [...waiting, { ...request, requestId }];
  });
  const deadline = Date.now() + timeoutMs;
  const key = inboxReplyKey(requestId);
  while (Date.now() < deadline) {
    const reply = await getSealed(shared, key);
    if (reply !== null) {
      await shared.store.delete(key);
      return (reply as { answer: unknown }).answer;
    }
    await sleep(REPLY_POLL_MS);
  }
  throw new HostDidNotAnswerError();
}

/** Sends `request` without waiting for a reply (the host answers none for it). */
export async function tellHost(shared: SealedStore, sessionId: string, request: InboxRequest): Promise<void> {
  const requestId = randomBytes(12).toString("base64url");
  await updateSealed(shared, sessionInboxKey(sessionId), INBOX_TTL_MS, (value) => {
    const waiting = Array.isArray(value) ? (value as Envelope[]) : [];
    return waiting.length >= MAX_WAITING ? waiting : [...waiting, { ...request, requestId }];
  });
}

/** The host's side: takes every waiting request (each handed out once, even with several pollers). */
export async function takeRequests(shared: SealedStore, sessionId: string): Promise<Envelope[]> {
  const key = sessionInboxKey(sessionId);
  const raw = await shared.store.get(key);
  if (raw === null || !(await shared.store.deleteIfEquals(key, raw))) return [];
  const value = await openSealed(shared, raw);
  return Array.isArray(value) ? (value as Envelope[]) : [];
}

/** Puts requests back at the head of the inbox, for the instance that takes the session over next. */
export async function requeue(shared: SealedStore, sessionId: string, requests: Envelope[]): Promise<void> {
  if (requests.length === 0) return;
  await updateSealed(shared, sessionInboxKey(sessionId), INBOX_TTL_MS, (value) => [...requests, ...(Array.isArray(value) ? (value as Envelope[]) : [])]);
}

export async function reply(shared: SealedStore, requestId: string, value: unknown): Promise<void> {
  // Wrapped: an answer of `null` is still an answer.
  await putSealed(shared, inboxReplyKey(requestId), { answer: value }, INBOX_TTL_MS);
}

import "server-only";
/**
 * A live session hosted by another instance, as the routes see it: its events read from the shared
 * store a few times a second, its confirmations and hang-up sent to the host's inbox. When its
 * record lapses without a `session.closed` (the host died), the stream gets one: `instance_gone`.
 * When its host handed it off, the stream just ends: the next request takes it over.
 */
import { endSignal, type EventLog, type LiveEvent } from "../event-log";
import type { ConfirmOutcome } from "../tool-calls";
import type { ConfirmTool, ToolAccount } from "../types";
import { askHost, HostDidNotAnswerError, tellHost } from "./inbox";
import { sessionEventsKey } from "./keys";
import { readRecord, type SessionRecord } from "./records";
import { getSealed, type SealedStore } from "./sealed-store";

/** How often an event stream served away from the host reads the shared events. */
const REMOTE_EVENTS_POLL_MS = 300;
/** How long a request waits for the host's answer before it counts as gone. */
export const HOST_ANSWER_TIMEOUT_MS = 10_000;

/** What the routes use of a live session, wherever it runs. */
export interface ServedSession {
  id: string;
  events: Pick<EventLog, "subscribe" | "onEnd" | "lastSeq">;
  touch(): void;
  confirm(callId: string, approved: boolean, confirmTool: ConfirmTool, account: ToolAccount & { loginId: string }): Promise<ConfirmOutcome>;
  close(reason: string): Promise<void>;
}

function remoteEvents(shared: SealedStore, sessionId: string, now: () => number): ServedSession["events"] {
  let last = 0;
  const { end, onEnd } = endSignal();
  return {
    lastSeq: () => last,
    onEnd,
    subscribe(after, listener) {
      last = after;
      let following = true;
      let timer: NodeJS.Timeout | undefined;
      const deliver = (event: LiveEvent) => {
        last = event.seq;
        listener(event);
      };
      const poll = async () => {
        try {
          const [events, record] = await Promise.all([getSealed(shared, sessionEventsKey(sessionId)), readRecord(shared, sessionId)]);
          if (!following) return;
          let closed = false;
          for (const event of Array.isArray(events) ? (events as LiveEvent[]) : []) {
            if (event.seq <= last) continue;
            deliver(event);
            closed ||= event.type === "session.closed";
          }
          if (!closed && (record === null || record.closed !== undefined)) {
            deliver({ seq: last + 1, type: "session.closed", at: now(), reason: record?.closed ?? "instance_gone" });
            closed = true;
          }
          if (closed) return end();
          // Handed off, waiting for an instance to take it over: the stream ends without session.closed,
          // and the browser's next one (on whichever instance) takes it over.
          if (record?.host === "") return end();
        } catch {
          // The store did not answer this time: the next poll tries again.
        }
        if (following) timer = setTimeout(() => void poll(), REMOTE_EVENTS_POLL_MS);
      };
      void poll();
      return () => {
        following = false;
        clearTimeout(timer);
      };
    },
  };
}

export function remoteSession(shared: SealedStore, record: SessionRecord, now: () => number): ServedSession {
  const ask = (request: Parameters<typeof askHost>[2]) => askHost(shared, record.id, request, HOST_ANSWER_TIMEOUT_MS);
  return {
    id: record.id,
    events: remoteEvents(shared, record.id, now),
    touch() {
      if (record.closed === undefined) void tellHost(shared, record.id, { kind: "touch" }).catch(() => undefined);
    },
    async confirm(callId, approved, _confirmTool, account) {
      if (record.closed !== undefined) return { kind: "not_pending" };
      try {
        return (await ask({ kind: "confirm", callId, approved, account })) as ConfirmOutcome;
      } catch (error) {
        if (error instanceof HostDidNotAnswerError) return { kind: "not_pending" };
        throw error;
      }
    },
    async close(reason) {
      if (record.closed !== undefined) return;
      await ask({ kind: "close", reason }).catch((error: unknown) => {
        if (!(error instanceof HostDidNotAnswerError)) throw error;
      });
    },
  };
}

import "server-only";
/**
 * The events of one live session, numbered by `seq` (1, 2, 3, …). The last `capacity` events are
 * kept (the oldest is dropped first), so a subscriber that comes late, or reconnects with
 * `?after=<seq>`, gets what it missed as long as it is still kept. At most `maxSubscribers` follow
 * it at once: a new one drops the oldest (a reloaded page is never locked out by its old streams).
 */
type LiveEventType =
  | "session.started"
  | "session.closed"
  | "handoff"
  | "tool.running"
  | "tool.completed"
  | "tool.pending_confirmation"
  | "tool.failed"
  | "error"
  | "keepalive";

export interface LiveEvent {
  seq: number;
  type: LiveEventType;
  /** Epoch ms. */
  at: number;
  [field: string]: unknown;
}

type EventListener = (event: LiveEvent) => void;

export interface EventLog {
  push(type: Exclude<LiveEventType, "keepalive">, fields?: Record<string, unknown>): LiveEvent;
  /**
   * Replays kept events with seq > after, then calls `listener` for each new one. Returns
   * unsubscribe. `onDropped` is called if a newer subscriber pushes this one out.
   */
  subscribe(after: number, listener: EventListener, onDropped?: () => void): () => void;
  /** Follows every event from the first kept one, as a mirror: not a subscriber (never counted, never dropped). Returns stop. */
  observe(listener: EventListener): () => void;
  lastSeq(): number;
  /** No further events: subscribers are told via `onEnd` and no new one is kept. */
  end(): void;
  isEnded(): boolean;
  onEnd(callback: () => void): () => void;
}

/** `from`: the events another instance kept of a session this one takes over; numbering goes on after them. */
/** An end that happens once: `onEnd` callbacks run then, or at once when it already happened. */
export function endSignal() {
  let ended = false;
  const callbacks = new Set<() => void>();
  return {
    end() {
      if (ended) return;
      ended = true;
      for (const callback of callbacks) callback();
      callbacks.clear();
    },
    isEnded: () => ended,
    onEnd(callback: () => void): () => void {
      if (ended) {
        callback();
        return () => undefined;
      }
      callbacks.add(callback);
      return () => callbacks.delete(callback);
    },
  };
}

export function createEventLog(capacity: number, now: () => number, maxSubscribers = Infinity, from: { kept: LiveEvent[]; lastSeq: number } = { kept: [], lastSeq: 0 }): EventLog {
  const kept: LiveEvent[] = from.kept.slice(-capacity);
  /** In subscription order: the first is the oldest. */
  const listeners = new Map<EventListener, () => void>();
  const observers = new Set<EventListener>();
  const ending = endSignal();
  let seq = Math.max(from.lastSeq, ...kept.map((event) => event.seq));

  return {
    push(type, fields = {}) {
      const event: LiveEvent = { ...fields, seq: ++seq, type, at: now() };
      if (ending.isEnded()) return event;
      kept.push(event);
      if (kept.length > capacity) kept.shift();
      for (const listener of [...listeners.keys()]) listener(event);
      for (const observer of [...observers]) observer(event);
      return event;
    },
    subscribe(after, listener, onDropped = () => undefined) {
      while (listeners.size >= maxSubscribers) {
        const [oldest, dropOldest] = listeners.entries().next().value!;
        listeners.delete(oldest);
        dropOldest();
      }
      for (const event of kept) if (event.seq > after) listener(event);
      // A function object of its own per subscription: the same listener twice is two subscribers.
      const own: EventListener = (event) => listener(event);
      listeners.set(own, onDropped);
      return () => listeners.delete(own);
    },
    observe(listener) {
      for (const event of kept) listener(event);
      const own: EventListener = (event) => listener(event);
      observers.add(own);
      return () => observers.delete(own);
    },
    lastSeq: () => seq,
    end: ending.end,
    isEnded: ending.isEnded,
    onEnd: ending.onEnd,
  };
}

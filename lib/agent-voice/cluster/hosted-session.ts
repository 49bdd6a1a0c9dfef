import "server-only";
/**
 * The hosting instance's side of a live session other instances can serve: its record (renewed by
 * a heartbeat), its events mirrored into the shared store (the last `eventBufferSize`, sealed), and
 * its inbox read a few times a second (confirmations, hang-ups and sign-outs sent from elsewhere).
 * Once the session ends: the last events, the record marked closed, the caps' claim released.
 */
import type { LiveEvent } from "../event-log";
import type { LiveSession } from "../live-session";
import type { ConfirmTool } from "../types";
import type { Logger } from "@/lib/logger";
import { LOG_PREFIX } from "@/lib/logger";
import type { SessionHolders } from "./holders";
import { reply, requeue, takeRequests } from "./inbox";
import { sessionEventsKey } from "./keys";
import { closeRecord, publishRecord, type SessionRecord } from "./records";
import { putSealed, type SealedStore } from "./sealed-store";

/** How often the host reads its inbox: a hang-up or sign-out on another instance ends the call within this. */
const INBOX_POLL_MS = 250;
/** How often the record and the claim are renewed. */
const HEARTBEAT_MS = 5_000;
/** How long a handed-off session waits for an instance to take it over (the browser's next request does). */
const HANDOFF_TTL_MS = 5 * 60_000;

interface HostSettings {
  shared: SealedStore;
  /** This instance's id. */
  instance: string;
  holders: SessionHolders;
  /** The caps' claim the start made for this session. */
  claim: string;
  confirmTool: ConfirmTool | undefined;
  eventBufferSize: number;
  /** How long the mirrored events last while the call does (its longest duration and then some). */
  liveEventsTtlMs: number;
  /** How long a closed session stays readable. */
  closedRetentionMs: number;
  logger: Logger;
}

/**
 * Publishes `session` for the other instances; resolves once they can serve it. Follows it until it
 * ends; `ended` resolves once its end is recorded (record closed, claim released).
 */
export async function hostSession(
  session: LiveSession,
  settings: HostSettings,
): Promise<{ ended: Promise<void>; handOff(): Promise<boolean> }> {
  const { shared, logger } = settings;
  const record: SessionRecord = {
    id: session.id,
    loginId: session.ownerLoginId,
    accountId: session.ownerAccountId,
    host: settings.instance,
    sandbox: session.sandbox,
    claim: settings.claim,
  };
  let warned = false;
  const warnOnce = (what: string) => {
    if (warned) return;
    warned = true;
    logger.warn(`${LOG_PREFIX} agent voice: could not ${what} in the shared store; other instances may not serve this live session`);
  };

  const kept: LiveEvent[] = [];
  let writing: Promise<void> | undefined;
  let dirty = false;
  let eventsTtlMs = settings.liveEventsTtlMs;
  /** Writes the kept events, one write at a time; events that arrive meanwhile go in the next. */
  const writeEvents = (): Promise<void> => {
    dirty = true;
    writing ??= (async () => {
      while (dirty) {
        dirty = false;
        await putSealed(shared, sessionEventsKey(session.id), kept, eventsTtlMs).catch(() => warnOnce("write its events"));
      }
    })().finally(() => (writing = undefined));
    return writing;
  };
  session.events.observe((event) => {
    kept.push(event);
    if (kept.length > settings.eventBufferSize) kept.shift();
    void writeEvents();
  });

  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));

  async function serveInbox(): Promise<void> {
    const requests = await takeRequests(shared, session.id);
    for (const [index, request] of requests.entries()) {
      if (request.kind === "hand_off") {
        const handedOff = await handOff();
        await reply(shared, request.requestId, handedOff);
        // What came after it is the next host's to serve.
        if (handedOff) return requeue(shared, session.id, requests.slice(index + 1));
      } else if (request.kind === "touch") session.touch();
      else if (request.kind === "close") {
        await session.close(request.reason);
        await ended;
        await reply(shared, request.requestId, true);
      } else {
        const outcome = settings.confirmTool
          ? await session.confirm(request.callId, request.approved, settings.confirmTool, request.account)
          : { kind: "handler_failed", message: "Confirmations are not configured on the instance hosting this call." };
        await reply(shared, request.requestId, outcome);
      }
    }
  }

  let ticks = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  /** The heartbeat under way, if one is: the end waits for it, or it could write the live record after the closed one. */
  let beating: Promise<void> = Promise.resolve();
  const beat = async () => {
    await publishRecord(shared, record);
    await settings.holders.renew(record.loginId, settings.claim);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick(), INBOX_POLL_MS);
    timer.unref();
  };
  const tick = async () => {
    try {
      await serveInbox();
      if (++ticks % Math.round(HEARTBEAT_MS / INBOX_POLL_MS) === 0 && !stopped) {
        beating = beat();
        await beating;
      }
    } catch {
      warnOnce("read its inbox or renew its record");
    }
    schedule();
  };

  // Published before its end is followed: an end that came first still marks the record closed after.
  await publishRecord(shared, record).catch(() => warnOnce("publish its record"));
  await writeEvents();
  session.events.onEnd(() => {
    stopped = true;
    clearTimeout(timer);
    const closedEvent = [...kept].reverse().find((event) => event.type === "session.closed");
    const reason = typeof closedEvent?.reason === "string" ? closedEvent.reason : "closed";
    eventsTtlMs = settings.closedRetentionMs;
    void (async () => {
      // A heartbeat under way could write the live record again after this one.
      await beating.catch(() => undefined);
      // Handed off: recorded before its events ended (handOff below).
      if (session.wasHandedOff()) return;
      await writeEvents();
      await closeRecord(shared, record, reason, settings.closedRetentionMs);
      await settings.holders.release(record.loginId, settings.claim);
    })()
      .catch(() => warnOnce("mark its end"))
      .finally(resolveEnded);
  });
  schedule();
  return { ended, handOff };

  /** Hands the session off (where its sandbox can: a VM) for another instance to take over; resolves once recorded. */
  async function handOff(): Promise<boolean> {
    const handoff = session.handOff();
    if (handoff === null) return false;
    stopped = true;
    clearTimeout(timer);
    await beating.catch(() => undefined);
    // Recorded before the streams end, so the browser's next request finds it waiting to be taken over.
    // No host until then; its claim stays (and lapses if nobody takes it over).
    await writeEvents();
    await publishRecord(shared, { ...record, host: "", handoff }, HANDOFF_TTL_MS).catch(() => warnOnce("record its hand-off"));
    session.events.end();
    await ended;
    return true;
  }
}

import "server-only";
/**
 * This instance's side of live sessions shared through the store: keeping a session so that its
 * close waits for its record to say closed, publishing it (hosted-session.ts), handing it off at
 * shutdown, and ending a login's session that another instance hosts or that waits to be taken over.
 */
import type { LiveSession } from "../live-session";
import type { AgentSandbox } from "../sandbox/types";
import type { ConfirmTool } from "../types";
import type { Logger } from "@/lib/logger";
import type { SessionHolders } from "./holders";
import { hostSession } from "./hosted-session";
import { askHost } from "./inbox";
import { closeRecord, readLoginRecord, type SessionRecord } from "./records";
import { HOST_ANSWER_TIMEOUT_MS } from "./remote-session";
import type { SealedStore } from "./sealed-store";
import { takeOver } from "./take-over";

interface HostingContext {
  shared: SealedStore;
  /** This instance's id. */
  instance: string;
  holders: SessionHolders;
  sandbox: AgentSandbox;
  confirmTool: ConfirmTool | undefined;
  logger: Logger;
  eventBufferSize: number;
  maxDurationMs: number;
  /** How long a closed session stays readable. */
  closedRetentionMs: number;
}

export function createHosting(ctx: HostingContext) {
  /** Hand-offs of the sessions this instance hosts, for shutdown. */
  const handOffs = new Map<string, () => Promise<boolean>>();

  /** Ends a session no instance hosts (handed off, waiting): taken over here only to end it. */
  async function endHandedOff(record: SessionRecord, reason: string): Promise<void> {
    const taken = await takeOver(ctx.shared, ctx.sandbox, ctx.holders, ctx.instance, record.id);
    if (taken.kind !== "taken") return;
    try {
      await taken.appServer.close();
      await closeRecord(ctx.shared, taken.record, reason, ctx.closedRetentionMs);
      if (taken.record.claim) await ctx.holders.release(record.loginId, taken.record.claim);
    } finally {
      await taken.release();
    }
  }

  return {
    /**
     * `started` as this instance keeps it: its close resolves once its record says closed too (the
     * next start, here or elsewhere, finds no holder). `publish()` shows it to the other instances.
     */
    keep(started: LiveSession, claim: string): { session: LiveSession; publish(): Promise<void> } {
      let ended: Promise<void> = started.closed;
      const session: LiveSession = { ...started, close: (reason) => started.close(reason).then(() => ended) };
      return {
        session,
        async publish() {
          const hosted = await hostSession(started, {
            shared: ctx.shared,
            instance: ctx.instance,
            holders: ctx.holders,
            claim,
            confirmTool: ctx.confirmTool,
            eventBufferSize: ctx.eventBufferSize,
            liveEventsTtlMs: ctx.maxDurationMs + ctx.closedRetentionMs,
            closedRetentionMs: ctx.closedRetentionMs,
            logger: ctx.logger,
          });
          ended = hosted.ended;
          handOffs.set(session.id, hosted.handOff);
          void ended.then(() => handOffs.delete(session.id));
        },
      };
    },

    /** Hands the session off for another instance to take over; false where it cannot (a local process) or failed. */
    handOff(sessionId: string): Promise<boolean> {
      return handOffs.get(sessionId)?.().catch(() => false) ?? Promise.resolve(false);
    },

    /** Asks the instance hosting the session to hand it off; true once it did (false: it cannot, or did not answer). */
    async pull(sessionId: string): Promise<boolean> {
      return (await askHost(ctx.shared, sessionId, { kind: "hand_off" }, HOST_ANSWER_TIMEOUT_MS).catch(() => false)) === true;
    },

    /** Ends the login's live session where another instance hosts it, or where it waits to be taken over. */
    async closeElsewhere(loginId: string, reason: string): Promise<void> {
      const record = await readLoginRecord(ctx.shared, loginId);
      if (record && record.host === "") await endHandedOff(record, reason);
      else if (record && record.host !== ctx.instance) {
        await askHost(ctx.shared, record.id, { kind: "close", reason }, HOST_ANSWER_TIMEOUT_MS).catch(() => undefined);
      }
    },
  };
}

"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { openChatDb } from "@/lib/client/chat-db";
import { createHistoryApi, type HistoryApi } from "@/lib/client/history-api";
import { chooseHistoryPlace, historyPlace, type HistoryPlace } from "@/lib/client/history-choice";
import { createHistoryStore, type HistoryLocalStore } from "@/lib/client/history-store";
import { syncRound } from "@/lib/client/history-sync";
import { isProviderProxyError } from "@/lib/client/provider-proxy-error";
import { createSyncScheduler, type SyncScheduler } from "@/lib/client/sync-scheduler";
import { oneTabAtATime, openTabChannel, type TabChannel } from "@/lib/client/tab-channel";

/** Conversations changed elsewhere: these ids, or all of them. */
type ChangedElsewhere = string[] | "all";

/** What the page tells the person about syncing, besides where chats are kept. */
export interface SyncNote {
  /** Conversations this browser kept before, now sent to the server (the first sync). */
  uploaded: number;
  /** Messages the server would not take (too large, or damaged): they stay on this device. */
  notKept: number;
  /** The account's space on the server is full. */
  quotaFull: boolean;
}

export interface HistorySync {
  place: HistoryPlace;
  /** Writes are queued for the server. */
  queue: boolean;
  /** After a write of this tab: the other tabs read it again, and it goes to the server soon. */
  announce(conversationIds: string[]): void;
  /** Hears of conversations changed by another tab or device; returns the way to stop. */
  subscribe(listener: (changed: ChangedElsewhere) => void): () => void;
  note: SyncNote;
  dismissNote(): void;
  /** The person's own instructions as this browser last read them. */
  instructions: { text: string; rev: number };
  saveInstructions(text: string): Promise<void>;
  choosePlace(place: "server" | "device"): void;
  /** Sends what is queued and reads what is new, now (before a share link is made). */
  syncNow(): Promise<void>;
  api: HistoryApi;
}

const NO_NOTE: SyncNote = { uploaded: 0, notKept: 0, quotaFull: false };
/** Longer than any first sync of a large history on a slow line; a stalled one is abandoned and retried. */
const ROUND_TIMEOUT_MS = 120_000;

/**
 * Keeps this browser's copy in step with the server's (when the server keeps history and the
 * person has not chosen this device only) and with the account's other tabs (always): a round of
 * push and pull when the tab opens, shows, gets the focus or comes online, after each change, and
 * every few seconds while it is visible (lib/client/sync-scheduler). One tab syncs at a time.
 */
export function useHistorySync(accountId: string, serverHistory: "server" | "browser" | undefined): HistorySync {
  const [chosen, setChosen] = useState(() => historyPlace(serverHistory, accountId));
  const [serverOff, setServerOff] = useState(false);
  const place: HistoryPlace = serverOff ? "browser" : serverHistory === "server" ? chosen : "browser";
  const syncing = place === "server";
  const [note, setNote] = useState<SyncNote>(NO_NOTE);
  const [instructions, setInstructions] = useState({ text: "", rev: 0 });
  const api = useMemo(() => createHistoryApi(), []);
  const listeners = useRef(new Set<(changed: ChangedElsewhere) => void>());
  const channelRef = useRef<TabChannel | null>(null);
  const schedulerRef = useRef<SyncScheduler | null>(null);
  const localRef = useRef<HistoryLocalStore | null>(null);
  const roundRef = useRef<(() => Promise<void>) | null>(null);

  const notify = useCallback((changed: ChangedElsewhere) => {
    for (const listener of [...listeners.current]) listener(changed);
  }, []);

  const readInstructions = useCallback(async () => {
    const local = localRef.current;
    if (local) setInstructions((await local.state(accountId)).instructions);
  }, [accountId]);

  // The account's other tabs: what they changed, and their settings.
  useEffect(() => {
    const channel = openTabChannel(accountId, (message) => {
      if (message.type === "changed") notify(message.conversationIds);
      else if (message.type === "reload") notify("all");
      else {
        setChosen(historyPlace(serverHistory, accountId));
        void readInstructions();
      }
    });
    channelRef.current = channel;
    return () => {
      channel.close();
      channelRef.current = null;
    };
  }, [accountId, serverHistory, notify, readInstructions]);

  // The rounds with the server, while this browser's chats are kept there.
  useEffect(() => {
    if (!syncing) return;
    let stopped = false;
    let scheduler: SyncScheduler | null = null;
    const round = async () => {
      const local = localRef.current;
      if (!local || stopped) return;
      // A round that hangs (a stalled connection) must not hold the other tabs' turn for ever.
      const signal = AbortSignal.timeout(ROUND_TIMEOUT_MS);
      const result = await oneTabAtATime(`lwc-history-sync:${accountId}`, () => syncRound({ api, local, accountId, signal }));
      if (stopped) return;
      if (result.cleared) {
        notify("all");
        channelRef.current?.post({ type: "reload" });
      } else if (result.changed.length > 0) {
        notify(result.changed);
        channelRef.current?.post({ type: "changed", conversationIds: result.changed });
      }
      if (result.uploaded > 0 || result.notKept > 0 || result.quotaFull) {
        setNote((current) => ({ uploaded: current.uploaded + result.uploaded, notKept: current.notKept + result.notKept, quotaFull: result.quotaFull }));
      }
      await readInstructions();
    };
    const onFailure = (error: unknown) => {
      if (isProviderProxyError(error) && error.code === "history_disabled") setServerOff(true);
      return isProviderProxyError(error) && error.status === 429 ? (error.retryAfterSeconds ?? 60) * 1000 : undefined;
    };
    roundRef.current = round;
    void openChatDb().then(
      (db) => {
        if (stopped) return db.close();
        localRef.current = createHistoryStore(db);
        scheduler = createSyncScheduler({
          round,
          isVisible: () => document.visibilityState === "visible",
          retryAfterMs: onFailure,
          timers: { setTimeout: (callback, ms) => window.setTimeout(callback, ms), clearTimeout: (handle) => window.clearTimeout(handle as number), now: () => Date.now() },
        });
        schedulerRef.current = scheduler;
        scheduler.request("now");
      },
      () => undefined,
    );
    const now = () => schedulerRef.current?.request("now");
    const onVisibility = () => {
      if (document.visibilityState === "visible") now();
    };
    document.addEventListener("visibilitychange", onVisibility);
    window.addEventListener("focus", now);
    window.addEventListener("online", now);
    return () => {
      stopped = true;
      scheduler?.stop();
      schedulerRef.current = null;
      localRef.current = null;
      roundRef.current = null;
      document.removeEventListener("visibilitychange", onVisibility);
      window.removeEventListener("focus", now);
      window.removeEventListener("online", now);
    };
  }, [syncing, accountId, api, notify, readInstructions]);

  const announce = useCallback(
    (conversationIds: string[]) => {
      if (conversationIds.length === 0) return;
      channelRef.current?.post({ type: "changed", conversationIds });
      schedulerRef.current?.request("change");
    },
    [],
  );

  const subscribe = useCallback((listener: (changed: ChangedElsewhere) => void) => {
    listeners.current.add(listener);
    return () => void listeners.current.delete(listener);
  }, []);

  const choosePlace = useCallback(
    (next: "server" | "device") => {
      const chosenNow = () => {
        chooseHistoryPlace(accountId, next);
        setChosen(historyPlace(serverHistory, accountId));
        channelRef.current?.post({ type: "settings" });
      };
      if (next === "device") return chosenNow();
      // Back to the server: what this browser kept meanwhile goes up with the next round.
      void openChatDb()
        .then(async (db) => {
          await createHistoryStore(db).setState(accountId, { uploaded: false });
          db.close();
        })
        .catch(() => undefined)
        .finally(chosenNow);
    },
    [accountId, serverHistory],
  );

  const saveInstructions = useCallback(
    async (text: string) => {
      const rev = Math.max(Date.now(), instructions.rev + 1);
      await api.setInstructions(text, rev);
      const local = localRef.current;
      if (local) await local.setState(accountId, { instructions: { text, rev } });
      setInstructions({ text, rev });
      channelRef.current?.post({ type: "settings" });
    },
    [api, accountId, instructions.rev],
  );

  const syncNow = useCallback(async () => {
    await roundRef.current?.();
  }, []);

  return {
    place,
    queue: syncing,
    announce,
    subscribe,
    note,
    dismissNote: () => setNote(NO_NOTE),
    instructions,
    saveInstructions,
    choosePlace,
    syncNow,
    api,
  };
}

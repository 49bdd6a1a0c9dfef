"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { agentVoiceClient, type AgentEvent, type AgentNote } from "@/lib/client/agent-voice";

/**
 * Agent mode of the voice dialog: whether the server offers it, the live session's events, the
 * tool calls waiting for the person, and the account's notes.
 */
export function useAgentSession() {
  const client = useMemo(() => agentVoiceClient(), []);
  const [available, setAvailable] = useState(false);
  const [notes, setNotes] = useState<AgentNote[]>([]);
  const [activity, setActivity] = useState<AgentEvent[]>([]);
  const [pending, setPending] = useState<AgentEvent[]>([]);
  const [confirmError, setConfirmError] = useState<string | null>(null);
  const sessionRef = useRef<string | null>(null);
  const followRef = useRef<AbortController | null>(null);

  const refreshNotes = useCallback(async () => {
    const list = await client.notes();
    if (list) setNotes(list);
    return list;
  }, [client]);

  // The notes route exists only when agent voice is on: it doubles as the "is it on?" probe.
  useEffect(() => {
    let cancelled = false;
    void client.notes().then((list) => {
      if (cancelled || !list) return;
      setAvailable(true);
      setNotes(list);
    });
    return () => {
      cancelled = true;
    };
  }, [client]);

  const onEvent = useCallback(
    (event: AgentEvent) => {
      setActivity((current) => [...current, event]);
      if (event.type === "tool.pending_confirmation") setPending((current) => [...current, event]);
      if (event.type === "tool.completed" || event.type === "tool.failed") {
        setPending((current) => current.filter((item) => item.callId !== event.callId));
        if (event.approved === true) void refreshNotes();
      }
      if (event.type === "session.closed") setPending([]);
    },
    [refreshNotes],
  );

  const stop = useCallback(() => {
    followRef.current?.abort();
    followRef.current = null;
    const id = sessionRef.current;
    sessionRef.current = null;
    setPending([]);
    if (id) void client.close(id);
  }, [client]);

  /** For connectRealtime: posts the offer to the app-server route and starts following its events. */
  const exchangeOffer = useCallback(
    async (sdp: string, signal: AbortSignal, session: Record<string, unknown>) => {
      stop();
      setActivity([]);
      setConfirmError(null);
      const started = await client.start(sdp, session, signal);
      sessionRef.current = started.sessionId;
      const follow = new AbortController();
      followRef.current = follow;
      void client.follow(started.sessionId, onEvent, follow.signal);
      return started.sdp;
    },
    [client, onEvent, stop],
  );

  const decide = useCallback(
    async (callId: string, approved: boolean) => {
      const id = sessionRef.current;
      if (!id) return;
      setConfirmError(null);
      try {
        await client.confirm(id, callId, approved);
      } catch (error) {
        setConfirmError(error instanceof Error ? error.message : "The confirmation failed.");
      }
    },
    [client],
  );

  useEffect(() => stop, [stop]);

  return { available, notes, activity, pending, confirmError, exchangeOffer, decide, stop };
}

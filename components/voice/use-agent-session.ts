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
  /** Why agent mode cannot start on this server (its sandbox cannot start), in words; null otherwise. */
  const [unavailable, setUnavailable] = useState<string | null>(null);
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

  // The status route exists only when agent voice is on (404 otherwise); it also says when the
  // server cannot start agent mode's sandbox.
  useEffect(() => {
    let cancelled = false;
    void client.status().then(async (status) => {
      if (cancelled || !status) return;
      if (!status.available) {
        setUnavailable(status.message ?? "Agent mode is unavailable on this server.");
        return;
      }
      setAvailable(true);
      const list = await client.notes();
      if (!cancelled && list) setNotes(list);
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

  return { available, unavailable, notes, activity, pending, confirmError, exchangeOffer, decide, stop };
}

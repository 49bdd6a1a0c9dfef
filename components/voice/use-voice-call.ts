"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { connectRealtime, type ConnectRealtimeOptions, type RealtimeCall, type RealtimeSessionOptions } from "@/lib/client/realtime";
import { describeRealtimeError, type RealtimeErrorInfo } from "@/lib/client/realtime-error";
import { appendTypedLine, applyTranscriptEvent, finishedTranscript, type TranscriptLine } from "@/lib/client/realtime-transcript";

type VoicePhase = "idle" | "connecting" | "connected" | "reconnecting" | "ended" | "failed";

/** What a person sees and hears announced: the phase refined by who is talking and the mute switch. */
export type VoiceStatus = "idle" | "connecting" | "listening" | "speaking" | "muted" | "ended" | "failed";

interface VoiceLevels {
  microphone: number;
  assistant: number;
}

const LEVEL_POLL_MS = 100;
// RMS above this counts as the assistant talking; held a little so the status does not flicker between words.
const SPEAKING_THRESHOLD = 0.02;
const SPEAKING_HOLD_MS = 500;

interface UseVoiceCallOptions {
  /** Called once per call when it ends or fails, with the lines that had words in them. */
  onFinished: (lines: TranscriptLine[]) => void;
}

/** Runs one voice call at a time for the voice dialog: state, transcript, levels and the controls. */
export function useVoiceCall({ onFinished }: UseVoiceCallOptions) {
  const [phase, setPhase] = useState<VoicePhase>("idle");
  const [error, setError] = useState<RealtimeErrorInfo | null>(null);
  const [muted, setMuted] = useState(false);
  const [lines, setLines] = useState<TranscriptLine[]>([]);
  const [levels, setLevels] = useState<VoiceLevels>({ microphone: 0, assistant: 0 });
  const [assistantSpeaking, setAssistantSpeaking] = useState(false);
  // The service also says when its audio starts and stops; either signal counts as speaking.
  const [assistantAudio, setAssistantAudio] = useState(false);

  const callRef = useRef<RealtimeCall | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const linesRef = useRef<TranscriptLine[]>([]);
  const finishedRef = useRef(true);
  const onFinishedRef = useRef(onFinished);
  const typedCountRef = useRef(0);

  useEffect(() => {
    onFinishedRef.current = onFinished;
  }, [onFinished]);

  const updateLines = useCallback((change: (current: TranscriptLine[]) => TranscriptLine[]) => {
    linesRef.current = change(linesRef.current);
    setLines(linesRef.current);
  }, []);

  const finish = useCallback(() => {
    if (finishedRef.current) return;
    finishedRef.current = true;
    const kept = finishedTranscript(linesRef.current);
    if (kept.length > 0) onFinishedRef.current(kept);
  }, []);

  const start = useCallback(
    async (session: RealtimeSessionOptions, exchangeOffer?: ConnectRealtimeOptions["exchangeOffer"]) => {
      abortRef.current?.abort();
      callRef.current?.hangUp();
      const abort = new AbortController();
      abortRef.current = abort;
      finishedRef.current = false;
      updateLines(() => []);
      setError(null);
      setMuted(false);
      setPhase("connecting");
      try {
        const call = await connectRealtime({
          session,
          ...(exchangeOffer ? { exchangeOffer } : {}),
          signal: abort.signal,
          onEvent: (event) => {
            updateLines((current) => applyTranscriptEvent(current, event));
            if (event.type === "output_audio_buffer.started") setAssistantAudio(true);
            if (event.type === "output_audio_buffer.stopped" || event.type === "response.done") setAssistantAudio(false);
          },
          onState: (state, stateError) => {
            if (abort.signal.aborted) return;
            setPhase(state);
            if (stateError) setError(describeRealtimeError(stateError));
            if (state === "ended" || state === "failed") {
              callRef.current = null;
              finish();
            }
          },
        });
        if (abort.signal.aborted) {
          call.hangUp();
          return;
        }
        callRef.current = call;
        setPhase("connected");
      } catch (failure) {
        if (abort.signal.aborted) return;
        setError(describeRealtimeError(failure));
        setPhase("failed");
        finish();
      }
    },
    [finish, updateLines],
  );

  const hangUp = useCallback(() => {
    const connecting = abortRef.current;
    abortRef.current = null;
    connecting?.abort();
    callRef.current?.hangUp();
    callRef.current = null;
    setPhase((current) => (current === "idle" || current === "failed" ? current : "ended"));
    finish();
  }, [finish]);

  const toggleMute = useCallback(async () => {
    const call = callRef.current;
    if (!call) return;
    const next = !call.muted;
    setMuted(next);
    await call.setMuted(next);
  }, []);

  /** Returns false when the text could not be sent (no open call). */
  const sendText = useCallback(
    (text: string): boolean => {
      const call = callRef.current;
      if (!call || call.dataChannel.readyState !== "open") return false;
      call.sendText(text);
      typedCountRef.current += 1;
      updateLines((current) => appendTypedLine(current, `typed-${typedCountRef.current}`, text));
      return true;
    },
    [updateLines],
  );

  // Levels for the meters, and "speaking" from the assistant's level.
  const live = phase === "connected" || phase === "reconnecting";
  useEffect(() => {
    if (!live) return;
    let lastLoud = 0;
    const timer = setInterval(() => {
      const call = callRef.current;
      if (!call) return;
      const next = call.levels();
      setLevels(next);
      const now = performance.now();
      if (next.assistant > SPEAKING_THRESHOLD) lastLoud = now;
      setAssistantSpeaking(now - lastLoud < SPEAKING_HOLD_MS);
    }, LEVEL_POLL_MS);
    return () => {
      clearInterval(timer);
      setLevels({ microphone: 0, assistant: 0 });
      setAssistantSpeaking(false);
      setAssistantAudio(false);
    };
  }, [live]);

  // Closing the dialog or leaving the chat screen ends the call and releases the microphone.
  useEffect(
    () => () => {
      abortRef.current?.abort();
      callRef.current?.hangUp();
      callRef.current = null;
    },
    [],
  );

  const status: VoiceStatus =
    phase === "connected"
      ? assistantSpeaking || assistantAudio
        ? "speaking"
        : muted
          ? "muted"
          : "listening"
      : phase === "reconnecting"
        ? "connecting"
        : phase;

  return { phase, status, error, muted, lines, levels, start, hangUp, toggleMute, sendText, reconnecting: phase === "reconnecting" };
}

/**
 * Browser side of agent voice (`/realtime/app-server…`): exchange the WebRTC offer, follow the
 * live session's NDJSON events (resuming with ?after= if the stream drops), confirm or deny a
 * pending tool call, hang up, and list the account's notes.
 */
import { normalizeBasePath } from "@/lib/shared/base-path";
import { RealtimeError, realtimeErrorFromResponse } from "./realtime-error";

export interface AgentEvent {
  seq: number;
  type: string;
  at: number;
  callId?: string;
  tool?: string;
  review?: Record<string, unknown>;
  transcript?: string;
  approved?: boolean;
  message?: string;
  reason?: string;
  [field: string]: unknown;
}

/**
 * `GET /realtime/app-server/status`: whether agent mode can start on this server. `available:
 * false` when its sandbox cannot start (then `message` says so in words); `sandbox` is the one
 * every codex process runs in (`bwrap`, `vercel` for a Vercel Sandbox microVM per session, or `off`
 * when the server runs them unsandboxed).
 */
interface AgentVoiceStatus {
  available: boolean;
  sandbox: string;
  message?: string;
}

export interface AgentNote {
  id: string;
  text: string;
  createdAt: number;
}

/** Event streams in a row that bring nothing before following gives up (each waits a little longer). */
const RESUME_ATTEMPTS = 5;
const RESUME_PAUSE_MS = 200;

export function agentVoiceClient(basePath?: string, fetchImpl: typeof fetch = (input, init) => globalThis.fetch(input, init)) {
  const root = `${normalizeBasePath(basePath)}/realtime/app-server`;

  return {
    /** POST the offer; the answer SDP and the live session's id. */
    async start(sdp: string, session: Record<string, unknown>, signal: AbortSignal): Promise<{ sessionId: string; sdp: string }> {
      let response: Response;
      try {
        response = await fetchImpl(root, {
          method: "POST",
          credentials: "include",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sdp, session }),
          signal,
        });
      } catch (error) {
        throw new RealtimeError({ code: "network_error", message: "The agent voice route could not be reached.", cause: error });
      }
      if (!response.ok) throw await realtimeErrorFromResponse(response);
      return (await response.json()) as { sessionId: string; sdp: string };
    },

    /**
     * Calls `onEvent` for every event until `session.closed` or the signal aborts. A stream that ends
     * while the call goes on (a serverless function's time limit, a deploy, a dropped connection) is
     * opened again after the last event seen, on whichever instance answers; only streams that bring
     * nothing at all count towards giving up.
     */
    async follow(sessionId: string, onEvent: (event: AgentEvent) => void, signal: AbortSignal): Promise<void> {
      let after = 0;
      let fruitless = 0;
      while (fruitless < RESUME_ATTEMPTS && !signal.aborted) {
        let heard = false;
        try {
          const response = await fetchImpl(`${root}/${encodeURIComponent(sessionId)}/events?after=${after}`, { credentials: "include", signal });
          if (!response.ok || !response.body) return;
          const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffered = "";
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buffered += value;
            let newline;
            while ((newline = buffered.indexOf("\n")) >= 0) {
              const event = JSON.parse(buffered.slice(0, newline)) as AgentEvent;
              buffered = buffered.slice(newline + 1);
              heard = true;
              if (event.type === "keepalive") continue;
              after = Math.max(after, event.seq);
              onEvent(event);
              if (event.type === "session.closed") return;
            }
          }
        } catch {
          // Not reached, or the stream broke: resume after the last event seen.
        }
        fruitless = heard ? 0 : fruitless + 1;
        if (!heard) await new Promise((resolve) => setTimeout(resolve, RESUME_PAUSE_MS * fruitless));
      }
    },

    async confirm(sessionId: string, callId: string, approved: boolean): Promise<void> {
      const response = await fetchImpl(`${root}/${encodeURIComponent(sessionId)}/confirm`, {
        method: "POST",
        credentials: "include",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ callId, confirmation: { approved } }),
      });
      if (!response.ok) throw await realtimeErrorFromResponse(response);
    },

    async close(sessionId: string): Promise<void> {
      await fetchImpl(`${root}/${encodeURIComponent(sessionId)}`, { method: "DELETE", credentials: "include", keepalive: true }).catch(
        () => undefined,
      );
    },

    /** Whether agent mode can start; null when agent voice is off on this server (404) or unreachable. */
    async status(): Promise<AgentVoiceStatus | null> {
      const response = await fetchImpl(`${root}/status`, { credentials: "include" }).catch(() => null);
      if (!response || !response.ok) return null;
      return (await response.json()) as AgentVoiceStatus;
    },

    /** The account's notes; null when agent voice is off on this server (404). */
    async notes(): Promise<AgentNote[] | null> {
      const response = await fetchImpl(`${root}/notes`, { credentials: "include" }).catch(() => null);
      if (!response || !response.ok) return null;
      return ((await response.json()) as { notes: AgentNote[] }).notes;
    },
  };
}


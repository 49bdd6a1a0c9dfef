"use client";

import { describeAgentEvent } from "@/lib/client/agent-activity";
import type { AgentEvent, AgentNote } from "@/lib/client/agent-voice";
import { primaryButton, secondaryButton } from "../ui/button-styles";

interface AgentPanelProps {
  activity: AgentEvent[];
  pending: AgentEvent[];
  notes: AgentNote[];
  confirmError: string | null;
  onDecide: (callId: string, approved: boolean) => void;
}

/** Agent mode: what the agent is doing, the actions waiting for the person, and the saved notes. */
export function AgentPanel({ activity, pending, notes, confirmError, onDecide }: AgentPanelProps) {
  const lines = activity.map((event) => ({ seq: event.seq, type: event.type, text: describeAgentEvent(event) })).filter((line) => line.text);
  return (
    <div className="flex flex-col gap-3" data-testid="agent-panel">
      {pending.map((call) => (
        <section
          key={call.callId}
          role="group"
          aria-labelledby={`confirm-${call.callId}`}
          data-testid="agent-confirmation"
          className="rounded-xl border border-primary/40 bg-muted p-3"
        >
          <h3 id={`confirm-${call.callId}`} className="text-[15px] font-semibold">
            Allow {call.tool}?
          </h3>
          <dl className="mt-1 text-[14px]">
            {Object.entries(call.review ?? {}).map(([name, value]) => (
              <div key={name} className="flex gap-2">
                <dt className="text-muted-foreground">{name}</dt>
                <dd data-testid={`agent-review-${name}`}>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
              </div>
            ))}
          </dl>
          <p className="mt-1 text-[13px] text-muted-foreground">Saying “yes” does not approve it: press a button.</p>
          <div className="mt-2 flex gap-2">
            <button type="button" data-testid="agent-approve" onClick={() => onDecide(call.callId!, true)} className={`${primaryButton} flex-1`}>
              Approve
            </button>
            <button type="button" data-testid="agent-deny" onClick={() => onDecide(call.callId!, false)} className={`${secondaryButton} flex-1`}>
              Deny
            </button>
          </div>
        </section>
      ))}
      {confirmError && (
        <p role="alert" data-testid="agent-confirm-error" className="text-[14px] text-destructive">
          {confirmError}
        </p>
      )}
      {lines.length > 0 && (
        <ul aria-label="Agent activity" aria-live="polite" data-testid="agent-activity" className="flex flex-col gap-1 text-[14px]">
          {lines.map((line) => (
            <li key={line.seq} data-event={line.type}>
              {line.text}
            </li>
          ))}
        </ul>
      )}
      <section aria-labelledby="agent-notes-title">
        <h3 id="agent-notes-title" className="text-[14px] font-semibold">
          Your notes
        </h3>
        {notes.length === 0 ? (
          <p className="text-[14px] text-muted-foreground">No notes yet.</p>
        ) : (
          <ul data-testid="agent-notes" className="list-disc pl-5 text-[14px]">
            {notes.map((note) => (
              <li key={note.id}>{note.text}</li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

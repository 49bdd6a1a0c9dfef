"use client";

import { useEffect, useRef } from "react";
import type { TranscriptLine } from "@/lib/client/realtime-transcript";

/** Both sides of the call as it happens; keeps the newest line in view. */
export function VoiceTranscript({ lines: allLines }: { lines: TranscriptLine[] }) {
  // A spoken turn holds its place from the moment it is heard; it shows once words arrive.
  const lines = allLines.filter((line) => line.text !== "");
  const endRef = useRef<HTMLDivElement>(null);
  const last = lines.at(-1);
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: "end" });
  }, [lines.length, last?.text]);

  return (
    // Never squeezed below about five lines, whatever else the dialog shows (agent mode's panel).
    <section aria-label="Transcript" className="min-h-32 flex-1 overflow-y-auto rounded-xl border border-border bg-background px-3 py-2">
      {lines.length === 0 ? (
        <p className="py-2 text-[13px] text-muted-foreground">What you and the assistant say appears here.</p>
      ) : (
        // A log: screen readers announce new lines without moving focus.
        <div role="log" aria-live="polite">
        <ol className="flex flex-col gap-2 py-1">
          {lines.map((line) => (
            <li key={line.id} data-testid={`voice-line-${line.role}`} data-done={line.done} className="text-[14px] leading-6">
              <span className="font-semibold text-foreground">{line.role === "user" ? (line.typed ? "You (typed)" : "You") : "Assistant"}: </span>
              <span className="text-foreground/90">{line.text}</span>
            </li>
          ))}
        </ol>
        </div>
      )}
      <div ref={endRef} />
    </section>
  );
}

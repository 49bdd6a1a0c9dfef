"use client";

import { ChevronDownIcon } from "../ui/icons";
import { MarkdownContent } from "./markdown-content";

/**
 * The model's reasoning summary, folded away by default. Inside a failed turn (dimmed as a whole,
 * `data-failed`) its muted text would fall below 4.5:1, so there it takes the foreground colour,
 * which the dimming brings back to a muted tone that still reads.
 */
export function ReasoningSummary({ text, thinking }: { text: string; thinking: boolean }) {
  return (
    <details data-testid="reasoning-summary" className="group mb-3 max-w-full">
      <summary className="inline-flex cursor-pointer list-none items-center gap-1.5 rounded-md py-0.5 text-[13px] font-medium text-muted-foreground in-data-[failed=true]:text-foreground select-none hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring [&::-webkit-details-marker]:hidden">
        {thinking ? "Thinking…" : "Reasoning"}
        <ChevronDownIcon className="size-3.5 transition-transform group-open:rotate-180 motion-reduce:transition-none" />
      </summary>
      <div className="mt-2 border-l-2 border-border pl-3.5 text-[13.5px] leading-6 text-muted-foreground in-data-[failed=true]:text-foreground">
        <MarkdownContent text={text} streaming={thinking} />
      </div>
    </details>
  );
}

"use client";

import { useId } from "react";

interface TitleSettingProps {
  on: boolean;
  onChange: (on: boolean) => void;
}

/** "Name chats automatically": a short title generated after a chat's first answer, remembered in this browser. */
export function TitleSetting({ on, onChange }: TitleSettingProps) {
  const descriptionId = useId();
  return (
    <div className="border-t border-border px-2 py-1">
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-describedby={descriptionId}
        data-testid="generate-titles-toggle"
        onClick={() => onChange(!on)}
        className="flex h-8 w-full items-center justify-between gap-2 rounded-lg px-2 text-[13px] text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
      >
        Name chats automatically
        <span aria-hidden="true" className={`relative inline-block h-3.5 w-6 shrink-0 rounded-full transition-colors ${on ? "bg-accent" : "bg-input"}`}>
          <span className={`absolute top-0.5 size-2.5 rounded-full bg-white shadow-sm transition-[left] motion-reduce:transition-none ${on ? "left-3" : "left-0.5"}`} />
        </span>
      </button>
      <p id={descriptionId} className="sr-only">
        After a chat&apos;s first answer, its title is asked of your smallest model: one small call on your plan.
      </p>
    </div>
  );
}

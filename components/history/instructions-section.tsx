"use client";

import { useState, type FormEvent } from "react";
import { secondaryButton } from "../ui/button-styles";

interface InstructionsSectionProps {
  /** As this browser last read them. */
  text: string;
  save: (text: string) => Promise<void>;
}

/** The person's own instructions, kept with their history and sent below the server's with every call. */
export function InstructionsSection({ text, save }: InstructionsSectionProps) {
  const [draft, setDraft] = useState(text);
  const [state, setState] = useState<"idle" | "saving" | "saved" | "failed">("idle");
  // Instructions that arrive from another device show here, unless the person is typing.
  const [shown, setShown] = useState(text);
  if (text !== shown) {
    setShown(text);
    if (draft === shown) setDraft(text);
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setState("saving");
    save(draft.trim()).then(
      () => setState("saved"),
      () => setState("failed"),
    );
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-2">
      <label htmlFor="history-instructions" className="text-sm font-semibold">
        How should it answer you?
      </label>
      <p className="text-[13px] leading-5 text-muted-foreground">
        Sent with every question, on every device, below this app&apos;s own instructions. Empty: none.
      </p>
      <textarea
        id="history-instructions"
        data-testid="instructions-input"
        dir="auto"
        value={draft}
        maxLength={8000}
        onChange={(event) => {
          setDraft(event.target.value);
          setState("idle");
        }}
        rows={3}
        placeholder="For example: answer briefly, in British English."
        className="block w-full resize-y rounded-lg border border-input bg-card px-3 py-2 text-sm leading-5 text-foreground focus:outline-2 focus:outline-ring"
      />
      <div className="flex items-center gap-3">
        <button type="submit" data-testid="instructions-save" disabled={state === "saving"} className={`${secondaryButton} h-9`}>
          Save
        </button>
        <span data-testid="instructions-status" role="status" className="text-[13px] text-muted-foreground">
          {state === "saved" ? "Saved." : state === "failed" ? "Couldn't save them. Try again when the server can be reached." : ""}
        </span>
      </div>
    </form>
  );
}

"use client";

import { useState } from "react";
import { ghostButton, secondaryButton } from "../ui/button-styles";

interface DeleteHistorySectionProps {
  /** This browser syncs with the server (its own copy goes too), or keeps its chats on this device only. */
  syncing: boolean;
  deleteEverything: () => Promise<{ conversations: number }>;
}

/** "Delete my chats from the server": everything, at once, after one confirmation. */
export function DeleteHistorySection({ syncing, deleteEverything }: DeleteHistorySectionProps) {
  const [step, setStep] = useState<"ask" | "confirm" | "deleting" | "done" | "failed">("ask");
  const [count, setCount] = useState(0);
  const run = () => {
    setStep("deleting");
    deleteEverything().then(
      (deleted) => {
        setCount(deleted.conversations);
        setStep("done");
      },
      () => setStep("failed"),
    );
  };
  return (
    <section className="flex flex-col gap-2" aria-labelledby="delete-history-heading">
      <h3 id="delete-history-heading" className="text-sm font-semibold">
        Delete my chats from the server
      </h3>
      <p className="text-[13px] leading-5 text-muted-foreground">
        Every chat the server keeps for you, your shared links and your instructions, at once.{" "}
        {syncing
          ? "Every browser that syncs with it, this one included, then removes its copy too."
          : "This browser keeps its own copy (you keep chats on this device only); browsers that sync remove theirs."}
      </p>
      {step === "ask" || step === "failed" ? (
        <div className="flex flex-col items-start gap-1">
          <button type="button" data-testid="delete-history" onClick={() => setStep("confirm")} className={`${secondaryButton} h-9 text-destructive`}>
            Delete my chats from the server…
          </button>
          {step === "failed" && <p className="text-[13px] text-destructive">Nothing was deleted: the server could not be reached. Try again.</p>}
        </div>
      ) : step === "confirm" || step === "deleting" ? (
        <div data-testid="delete-history-confirmation" role="alertdialog" aria-labelledby="delete-history-heading" className="flex flex-wrap items-center gap-2 rounded-xl border border-destructive/40 p-3">
          <span className="min-w-0 flex-1 text-[13px]">Delete them all now? This cannot be undone.</span>
          <button type="button" data-testid="delete-history-confirm" disabled={step === "deleting"} onClick={run} className={`${secondaryButton} h-9 text-destructive`} autoFocus>
            Delete everything
          </button>
          <button type="button" onClick={() => setStep("ask")} disabled={step === "deleting"} className={`${ghostButton} h-9`}>
            Cancel
          </button>
        </div>
      ) : (
        <p data-testid="delete-history-done" role="status" className="text-[13px] text-muted-foreground">
          Deleted {count === 1 ? "1 chat" : `${count} chats`} from the server.
        </p>
      )}
    </section>
  );
}

import { BoltIcon, XIcon } from "../ui/icons";

/** Says that the fast tier was refused for this answer and the standard tier was used instead. */
export function FallbackNotice({ onDismiss }: { onDismiss: () => void }) {
  return (
    <div
      role="status"
      data-testid="fallback-notice"
      className="flex items-center gap-2.5 rounded-xl bg-warning-soft px-3.5 py-2 text-[13px] text-warning-foreground"
    >
      <BoltIcon className="size-4 shrink-0" />
      <p className="flex-1">Fast isn&apos;t available for this model, so this answer used the standard speed.</p>
      <button
        type="button"
        onClick={onDismiss}
        aria-label="Dismiss notice"
        className="inline-flex size-7 items-center justify-center rounded-full hover:bg-black/5 focus-visible:outline-2 focus-visible:outline-ring dark:hover:bg-white/10"
      >
        <XIcon className="size-3.5" />
      </button>
    </div>
  );
}

import { MANAGE_USAGE_URL } from "@/lib/client/siwc";
import { secondaryButton } from "../ui/button-styles";

/** "Using ChatGPT plan" with the Manage usage link, beside the model picker of a Sign in with ChatGPT session. */
export function PlanUsageIndicator() {
  return (
    <span data-testid="plan-usage-indicator" className="inline-flex h-8 shrink-0 items-center gap-1.5 whitespace-nowrap px-1 text-[13px] text-muted-foreground">
      <span className="max-[520px]:sr-only">Using ChatGPT plan</span>
      <a
        href={MANAGE_USAGE_URL}
        target="_blank"
        rel="noopener noreferrer"
        data-testid="manage-usage-link"
        className="font-medium text-foreground underline underline-offset-2 hover:no-underline focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring"
      >
        Manage usage
      </a>
    </span>
  );
}

/** Signed in with ChatGPT without plan usage: why chat is off, and the way to turn plan usage on. */
export function PlanUsageOff({ onEnable, redirecting }: { onEnable: () => void; redirecting: boolean }) {
  return (
    <div role="status" data-testid="plan-usage-off" className="flex flex-wrap items-center justify-between gap-2 rounded-xl bg-muted px-3.5 py-2 text-[13px] text-foreground">
      <span>Chat is off: you signed in without letting this app use your ChatGPT plan.</span>
      <button type="button" data-testid="enable-plan-usage" onClick={onEnable} disabled={redirecting} aria-busy={redirecting} className={`${secondaryButton} h-7`}>
        {redirecting ? "Opening ChatGPT…" : "Enable plan usage"}
      </button>
    </div>
  );
}

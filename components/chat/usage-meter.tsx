import { formatResetTime } from "@/lib/client/format-time";
import type { UsageSnapshot } from "@/lib/client/usage-headers";

function windowName(minutes: number | undefined): string {
  if (!minutes) return "current window";
  if (minutes % 1440 === 0) return minutes === 10080 ? "weekly window" : `${minutes / 1440}-day window`;
  if (minutes % 60 === 0) return `${minutes / 60}-hour window`;
  return `${minutes}-minute window`;
}

/** How much of the plan's primary usage window is used, from the x-codex-* reply headers. */
export function UsageMeter({ usage }: { usage: UsageSnapshot }) {
  const primary = usage.primary ?? usage.secondary;
  if (!primary) return null;
  const percent = Math.round(primary.usedPercent);
  const resets = primary.resetsAt ? `, resets ${formatResetTime(primary.resetsAt)}` : "";
  const description = `${percent}% of your ${windowName(primary.windowMinutes)} used${resets}`;
  const tone = percent >= 90 ? "bg-destructive" : percent >= 70 ? "bg-[var(--warning-foreground)]" : "bg-accent";
  return (
    <div data-testid="usage-meter" className="flex items-center gap-2" title={description}>
      <div
        role="meter"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-label="Plan usage"
        aria-valuetext={description}
        className="h-1.5 w-8 overflow-hidden rounded-full bg-muted sm:w-20"
      >
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${Math.max(3, percent)}%` }} />
      </div>
      {/* "used" at every width: a bare "24%" beside the New chat "+" read as "+24%". */}
      <span className="whitespace-nowrap text-xs tabular-nums text-muted-foreground">
        {percent}% used<span className="hidden md:inline">{primary.resetsAt ? ` · resets ${formatResetTime(primary.resetsAt)}` : ""}</span>
      </span>
    </div>
  );
}

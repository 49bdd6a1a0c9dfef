import { isReasoningEffort, type ReasoningEffort } from "@/lib/client/chat-request-options";
import { CompactSelect } from "../ui/compact-select";
import { GaugeIcon } from "../ui/icons";

const LABELS: Record<ReasoningEffort, string> = {
  none: "None",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "Extra high",
  max: "Max",
};

interface ReasoningEffortSelectProps {
  value: ReasoningEffort;
  /** The efforts the chosen model accepts. */
  efforts: readonly ReasoningEffort[];
  onChange: (effort: ReasoningEffort) => void;
  disabled?: boolean;
}

/** How hard the model should think; sent as the x-login-with-provider-reasoning-effort header. */
export function ReasoningEffortSelect({ value, efforts, onChange, disabled }: ReasoningEffortSelectProps) {
  return (
    <CompactSelect
      id="reasoning-effort"
      label="Reasoning effort"
      data-testid="reasoning-effort"
      icon={<GaugeIcon className="size-3.5" />}
      title="Reasoning effort"
      // As wide as its longest effort: on a phone the row of controls wraps rather than cut it to "M…".
      className="shrink-0"
      value={value}
      disabled={disabled}
      onChange={(event) => {
        if (isReasoningEffort(event.target.value)) onChange(event.target.value);
      }}
    >
      {efforts.map((effort) => (
        <option key={effort} value={effort}>
          {LABELS[effort]}
        </option>
      ))}
    </CompactSelect>
  );
}

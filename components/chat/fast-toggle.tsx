import { BoltIcon } from "../ui/icons";
import { ToggleChip } from "../ui/toggle-chip";

interface FastToggleProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

/** Asks for the fast service tier (x-login-with-provider-service-tier: fast). */
export function FastToggle({ checked, onChange, disabled }: FastToggleProps) {
  return (
    <ToggleChip
      checked={checked}
      onChange={onChange}
      disabled={disabled}
      icon={<BoltIcon className="size-3.5" />}
      label="Fast"
      labelClassName="max-[400px]:sr-only"
      title="Faster answers where the model offers it; uses more of your plan"
      testId="fast-toggle"
    >
      <span aria-hidden="true" className={`relative ml-0.5 hidden h-3.5 w-6 rounded-full sm:inline-block transition-colors ${checked ? "bg-accent" : "bg-input"}`}>
        <span
          className={`absolute top-0.5 size-2.5 rounded-full bg-white shadow-sm transition-[left] motion-reduce:transition-none ${checked ? "left-3" : "left-0.5"}`}
        />
      </span>
    </ToggleChip>
  );
}

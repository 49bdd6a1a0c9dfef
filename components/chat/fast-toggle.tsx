import { BoltIcon } from "../ui/icons";

interface FastToggleProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

/** Asks for the fast service tier (x-login-with-provider-service-tier: fast). */
export function FastToggle({ checked, onChange, disabled }: FastToggleProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      data-testid="fast-toggle"
      disabled={disabled}
      onClick={() => onChange(!checked)}
      title="Faster answers where the model offers it; uses more of your plan"
      className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border px-2.5 text-[13px] font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 ${
        checked
          ? "border-accent/40 bg-accent-soft text-accent-foreground"
          : "border-transparent text-muted-foreground hover:bg-muted hover:text-foreground"
      }`}
    >
      <BoltIcon className="size-3.5" />
      <span className="max-[400px]:sr-only">Fast</span>
      <span
        aria-hidden="true"
        className={`relative ml-0.5 hidden h-3.5 w-6 rounded-full sm:inline-block transition-colors ${checked ? "bg-accent" : "bg-input"}`}
      >
        <span
          className={`absolute top-0.5 size-2.5 rounded-full bg-white shadow-sm transition-[left] motion-reduce:transition-none ${checked ? "left-3" : "left-0.5"}`}
        />
      </span>
    </button>
  );
}

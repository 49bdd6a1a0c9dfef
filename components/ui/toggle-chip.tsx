import type { ReactNode } from "react";

interface ToggleChipProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
  icon: ReactNode;
  label: string;
  /** Where the label is left to screen readers (a Tailwind class, e.g. `max-[520px]:sr-only`). */
  labelClassName: string;
  /** The switch's name where the label may be hidden. */
  ariaLabel?: string;
  title: string;
  testId: string;
  disabled?: boolean;
  /** After the label (Fast draws a small switch track). */
  children?: ReactNode;
}

/** A rounded on/off switch under the message box (Fast, Picture, Search): accent-coloured while on. */
export function ToggleChip({ checked, onChange, icon, label, labelClassName, ariaLabel, title, testId, disabled, children }: ToggleChipProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={ariaLabel}
      data-testid={testId}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      title={title}
      className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border px-2.5 text-[13px] font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 ${
        checked ? "border-accent/40 bg-accent-soft text-accent-foreground" : "border-transparent text-muted-foreground hover:bg-muted hover:text-foreground"
      }`}
    >
      {icon}
      <span className={labelClassName}>{label}</span>
      {children}
    </button>
  );
}

import { ChevronDownIcon } from "./icons";

interface CompactSelectProps extends React.SelectHTMLAttributes<HTMLSelectElement> {
  /** Visually hidden label text (the select shows its value). */
  label: string;
  icon?: React.ReactNode;
}

/** A native <select> dressed as a small pill: keyboard and screen-reader behaviour stay native. */
export function CompactSelect({ label, icon, id, className = "", children, ...props }: CompactSelectProps) {
  return (
    <div className={`relative inline-flex min-w-0 items-center ${className}`}>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      {icon && <span className="pointer-events-none absolute left-2.5 text-muted-foreground">{icon}</span>}
      <select
        id={id}
        {...props}
        className={`h-8 min-w-0 max-w-full cursor-pointer appearance-none truncate rounded-full border border-transparent bg-transparent pr-7 text-[13px] font-medium text-foreground hover:bg-muted focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 ${icon ? "pl-7" : "pl-3"}`}
      >
        {children}
      </select>
      <ChevronDownIcon className="pointer-events-none absolute right-2.5 size-3.5 text-muted-foreground" />
    </div>
  );
}

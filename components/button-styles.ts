// Shared class names for buttons, so every button has the same sizes, states and focus ring.
const base =
  "inline-flex items-center justify-center gap-2 rounded-full font-medium transition-colors select-none " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring " +
  "disabled:cursor-not-allowed disabled:opacity-50";

export const primaryButton = `${base} bg-primary text-primary-foreground hover:bg-primary/85 h-11 px-5 text-[15px]`;
export const secondaryButton = `${base} border border-border bg-card text-foreground hover:bg-muted h-10 px-4 text-sm`;
export const ghostButton = `${base} text-muted-foreground hover:bg-muted hover:text-foreground h-9 px-3 text-sm`;
export const iconButton = `${base} text-muted-foreground hover:bg-muted hover:text-foreground size-9`;

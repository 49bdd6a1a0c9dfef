// Shared class names for buttons, so every button has the same sizes, states and focus ring.
const base =
  "inline-flex items-center justify-center gap-2 rounded-full font-medium transition-colors select-none " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring " +
  "disabled:cursor-not-allowed disabled:opacity-50";

export const primaryButton = `${base} bg-primary text-primary-foreground hover:bg-primary/85 h-11 px-5 text-[15px]`;
export const secondaryButton = `${base} border border-border bg-card text-foreground hover:bg-muted h-10 px-4 text-sm`;
/** The primary style at an alert's action size (h-8), e.g. Manage usage in a plan-limit alert. */
export const primarySmallButton = `${base} bg-primary text-primary-foreground hover:bg-primary/85 h-8 px-3.5 text-sm`;
/** The secondary style at the primary size: the other of two equal ways (the device code beside Continue with ChatGPT). */
export const secondaryLargeButton = `${base} border border-border bg-card text-foreground hover:bg-muted h-11 px-5 text-[15px]`;
export const ghostButton = `${base} text-muted-foreground hover:bg-muted hover:text-foreground h-9 px-3 text-sm`;
export const iconButton = `${base} text-muted-foreground hover:bg-muted hover:text-foreground size-9`;
/**
 * "Continue with ChatGPT": black on the light theme, white on the dark one (the two colourways
 * OpenAI's guidelines allow), a plain text button. No OpenAI artwork is copied here; a deployer adds
 * the official mark as docs/siwc.md describes.
 */
export const chatgptButton =
  `${base} h-11 px-5 text-[15px] bg-black text-white hover:bg-black/80 dark:bg-white dark:text-black dark:hover:bg-white/85`;

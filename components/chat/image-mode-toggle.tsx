import { SparkIcon } from "../ui/icons";

/** "Make a picture": the next message asks for an image (the image_generation tool); `/image …` does the same once. */
export function ImageModeToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label="Make a picture"
      data-testid="image-toggle"
      onClick={() => onChange(!checked)}
      title="Make a picture: the next message asks for an image (or start a message with /image)"
      className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-full border px-2.5 text-[13px] font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring ${
        checked ? "border-accent/40 bg-accent-soft text-accent-foreground" : "border-transparent text-muted-foreground hover:bg-muted hover:text-foreground"
      }`}
    >
      <SparkIcon className="size-3.5" />
      <span className="max-[520px]:sr-only">Picture</span>
    </button>
  );
}

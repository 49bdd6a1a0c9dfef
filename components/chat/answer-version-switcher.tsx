import { iconButton } from "../ui/button-styles";
import { Icon, type IconProps } from "../ui/icons";

const ChevronLeftIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="m14.5 6-6 6 6 6" />
  </Icon>
);

const ChevronRightIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="m9.5 6 6 6-6 6" />
  </Icon>
);

interface VersionSwitcherProps {
  /** An answer's versions (regenerate), or a question's (an edit). */
  kind?: "answer" | "question";
  /** The version shown, from 0. */
  index: number;
  count: number;
  /** Undefined while switching is not possible (an answer is streaming). */
  onShow?: (index: number) => void;
}

/**
 * "‹ 1 / 2 ›": which of a turn's answers, or of a question's edits (each with the turns that
 * followed it), is shown; the one shown is what later turns send as context.
 */
export function VersionSwitcher({ kind = "answer", index, count, onShow }: VersionSwitcherProps) {
  return (
    <div data-testid={`${kind}-versions`} role="group" aria-label={kind === "answer" ? "Answer versions" : "Question versions"} className="flex items-center text-[13px] text-muted-foreground">
      <button
        type="button"
        data-testid={`${kind}-version-previous`}
        onClick={() => onShow?.(index - 1)}
        disabled={!onShow || index === 0}
        aria-label="Previous version"
        className={`${iconButton} size-8`}
      >
        <ChevronLeftIcon className="size-4" />
      </button>
      <span data-testid={`${kind}-version-label`} aria-live="polite" className="min-w-[2.75rem] text-center tabular-nums">
        {index + 1} / {count}
      </span>
      <button
        type="button"
        data-testid={`${kind}-version-next`}
        onClick={() => onShow?.(index + 1)}
        disabled={!onShow || index === count - 1}
        aria-label="Next version"
        className={`${iconButton} size-8`}
      >
        <ChevronRightIcon className="size-4" />
      </button>
    </div>
  );
}

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

interface AnswerVersionSwitcherProps {
  /** The version shown, from 0. */
  index: number;
  count: number;
  /** Undefined while switching is not possible (an answer is streaming). */
  onShow?: (index: number) => void;
}

/** "‹ 1 / 2 ›": which of a turn's answers is shown; the one shown is what later turns send as context. */
export function AnswerVersionSwitcher({ index, count, onShow }: AnswerVersionSwitcherProps) {
  return (
    <div data-testid="answer-versions" role="group" aria-label="Answer versions" className="flex items-center text-[13px] text-muted-foreground">
      <button
        type="button"
        data-testid="answer-version-previous"
        onClick={() => onShow?.(index - 1)}
        disabled={!onShow || index === 0}
        aria-label="Previous version"
        className={`${iconButton} size-8`}
      >
        <ChevronLeftIcon className="size-4" />
      </button>
      <span data-testid="answer-version-label" aria-live="polite" className="min-w-[2.75rem] text-center tabular-nums">
        {index + 1} / {count}
      </span>
      <button
        type="button"
        data-testid="answer-version-next"
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

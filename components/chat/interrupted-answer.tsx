import { ghostButton, secondaryButton } from "../ui/button-styles";
import { RefreshIcon } from "../ui/icons";

interface InterruptedAnswerProps {
  /** False while another answer streams or no model can be used. */
  enabled: boolean;
  /** Asks the model to carry on from the text saved so far. */
  onContinue: () => void;
  /** Answers the question afresh; the cut-off text stays as an earlier version. */
  onTryAgain: () => void;
}

/** Under an answer whose page was closed or reloaded while it streamed: what happened, and what can be done. */
export function InterruptedAnswer({ enabled, onContinue, onTryAgain }: InterruptedAnswerProps) {
  return (
    <div data-testid="answer-interrupted" className="mt-2 flex flex-wrap items-center gap-2 text-[13px] text-muted-foreground">
      <span>Interrupted: the page was closed or reloaded before this answer finished.</span>
      <span className="flex gap-1">
        <button type="button" data-testid="continue-answer-button" onClick={onContinue} disabled={!enabled} className={`${secondaryButton} h-8`}>
          Continue
        </button>
        <button type="button" data-testid="interrupted-retry-button" onClick={onTryAgain} disabled={!enabled} className={`${ghostButton} h-8 text-foreground`}>
          <RefreshIcon className="size-3.5" />
          Try again
        </button>
      </span>
    </div>
  );
}

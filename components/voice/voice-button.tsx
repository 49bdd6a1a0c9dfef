import { iconButton } from "../ui/button-styles";
import { WaveformIcon } from "./voice-icons";

/** Opens the voice dialog from the chat composer. */
export function VoiceButton({ onClick, disabled }: { onClick: () => void; disabled?: boolean }) {
  return (
    <button
      type="button"
      data-testid="voice-button"
      onClick={onClick}
      disabled={disabled}
      aria-label="Talk by voice"
      title="Talk by voice"
      aria-haspopup="dialog"
      className={`${iconButton} shrink-0`}
    >
      <WaveformIcon className="size-[18px]" />
    </button>
  );
}

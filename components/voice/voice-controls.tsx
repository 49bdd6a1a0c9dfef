import { secondaryButton } from "../ui/button-styles";
import { HangUpIcon, MicIcon, MicOffIcon } from "./voice-icons";

interface VoiceControlsProps {
  muted: boolean;
  onToggleMute: () => void;
  onHangUp: () => void;
}

/** Mute (a toggle button) and hang up, during a call. */
export function VoiceControls({ muted, onToggleMute, onHangUp }: VoiceControlsProps) {
  return (
    <div className="flex flex-wrap gap-2">
      <button type="button" data-testid="voice-mute" autoFocus aria-pressed={muted} onClick={onToggleMute} className={`${secondaryButton} flex-1`}>
        {muted ? <MicOffIcon className="size-4" /> : <MicIcon className="size-4" />}
        Mute
      </button>
      <button
        type="button"
        data-testid="voice-hang-up"
        onClick={onHangUp}
        className={`${secondaryButton} flex-1 border-destructive/40 text-destructive hover:bg-destructive-soft`}
      >
        <HangUpIcon className="size-4" />
        Hang up
      </button>
    </div>
  );
}

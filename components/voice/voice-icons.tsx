// Icons for the voice controls, drawn like those in ui/icons.tsx (24×24, stroke). Decorative: callers label the control.
import { Icon, type IconProps } from "../ui/icons";

export const MicIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="9" y="3" width="6" height="11" rx="3" />
    <path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21" />
  </Icon>
);

export const MicOffIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M15 9.5V6a3 3 0 0 0-5.7-1.3M9 9v2a3 3 0 0 0 4.6 2.5" />
    <path d="M5.5 11a6.5 6.5 0 0 0 10.4 5.2M18.5 11c0 .8-.1 1.5-.4 2.2M12 17.5V21M4 4l16 16" />
  </Icon>
);

export const HangUpIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M3.5 14.5c4.7-4 12.3-4 17 0l-1.6 2.4-3.4-1.1-.4-2.4a10 10 0 0 0-6.2 0l-.4 2.4-3.4 1.1z" />
  </Icon>
);

export const WaveformIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 10v4M8 7v10M12 4v16M16 8v8M20 10v4" />
  </Icon>
);

"use client";

import { useEffect, useState } from "react";
import { chooseTheme, readThemeChoice, THEME_CHOICES, THEME_STORAGE_KEY, type ThemeChoice } from "@/lib/client/theme";
import { Icon, type IconProps } from "./icons";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

const SunIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
  </Icon>
);

const MoonIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z" />
  </Icon>
);

const MonitorIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="3" y="4" width="18" height="12" rx="2" />
    <path d="M8 20h8M12 16v4" />
  </Icon>
);

const ICONS: Record<ThemeChoice, (props: IconProps) => React.ReactElement> = { system: MonitorIcon, light: SunIcon, dark: MoonIcon };

/**
 * System / Light / Dark. A native <select> (keyboard and screen readers as usual) laid invisibly over
 * an icon of the current choice, so it fits the header at phone width.
 */
export function ThemeSelect() {
  const [choice, setChoice] = useState<ThemeChoice>(() => readThemeChoice());

  // A choice made in another tab (the layout's script already applies it to this page).
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === THEME_STORAGE_KEY || event.key === null) setChoice(readThemeChoice());
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, []);

  const CurrentIcon = ICONS[choice];
  return (
    <div
      title={`Theme: ${LABELS[choice]}`}
      className="relative inline-flex size-9 shrink-0 items-center justify-center rounded-full text-muted-foreground hover:bg-muted hover:text-foreground has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring"
    >
      <CurrentIcon className="size-4" />
      <label htmlFor="theme-select" className="sr-only">
        Theme
      </label>
      <select
        id="theme-select"
        data-testid="theme-select"
        value={choice}
        onChange={(event) => {
          const next = event.target.value as ThemeChoice;
          setChoice(next);
          chooseTheme(next);
        }}
        className="absolute inset-0 size-full cursor-pointer appearance-none rounded-full opacity-0 focus:outline-none"
      >
        {THEME_CHOICES.map((value) => (
          <option key={value} value={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
    </div>
  );
}

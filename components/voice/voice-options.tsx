import type { RealtimeSessionOptions } from "@/lib/client/realtime";

// The voices of the Codex voice model; the server picks its default when none is chosen.
const VOICES = ["cove", "juniper", "maple", "spruce", "ember", "vale", "breeze", "arbor", "sol"];
const TRANSPORTS: { value: string; label: string }[] = [
  { value: "", label: "Server default" },
  { value: "codex", label: "Codex (codex)" },
  { value: "vp", label: "ChatGPT advanced (vp)" },
  { value: "vps", label: "ChatGPT standard (vps)" },
  { value: "wm", label: "ChatGPT newest (wm)" },
];

const VOICE_MODES: { value: string; label: string }[] = [
  { value: "", label: "Server default" },
  { value: "advanced", label: "Advanced" },
  { value: "standard", label: "Standard" },
  { value: "wingman", label: "Wingman" },
];

const selectClass =
  "h-10 w-full rounded-lg border border-input bg-card px-2 text-[14px] text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring";

interface VoiceOptionsProps {
  value: RealtimeSessionOptions;
  onChange: (value: RealtimeSessionOptions) => void;
}

/** Voice, connection type and voice mode for the next call; empty means "let the server decide". */
export function VoiceOptions({ value, onChange }: VoiceOptionsProps) {
  const set = (field: "voice" | "transport" | "voiceMode", next: string) => onChange({ ...value, [field]: next === "" ? undefined : next });
  return (
    <details className="rounded-xl border border-border px-3 py-2 text-[14px]">
      <summary className="cursor-pointer rounded text-muted-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring">
        Options
      </summary>
      <div className="mt-2 grid gap-3 pb-1 sm:grid-cols-3">
        <label className="flex flex-col gap-1">
          <span className="text-[13px] text-muted-foreground">Voice</span>
          <select data-testid="voice-voice" value={value.voice ?? ""} onChange={(event) => set("voice", event.target.value)} className={selectClass}>
            <option value="">Server default</option>
            {VOICES.map((voice) => (
              <option key={voice} value={voice}>
                {voice}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-[13px] text-muted-foreground">Connection type</span>
          <select data-testid="voice-transport" value={value.transport ?? ""} onChange={(event) => set("transport", event.target.value)} className={selectClass}>
            {TRANSPORTS.map((transport) => (
              <option key={transport.value} value={transport.value}>
                {transport.label}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          <span className="text-[13px] text-muted-foreground">Voice mode</span>
          <select data-testid="voice-mode" value={value.voiceMode ?? ""} onChange={(event) => set("voiceMode", event.target.value)} className={selectClass}>
            {VOICE_MODES.map((mode) => (
              <option key={mode.value} value={mode.value}>
                {mode.label}
              </option>
            ))}
          </select>
        </label>
      </div>
    </details>
  );
}

/** One side's loudness as a bar; a meter for assistive technology, with its value in percent. */
export function VoiceLevelMeter({ label, level, testId }: { label: string; level: number; testId: string }) {
  // Speech RMS rarely goes above 0.3; scale so normal speech fills most of the bar.
  const percent = Math.round(Math.min(1, level / 0.3) * 100);
  return (
    <div className="flex min-w-0 flex-1 items-center gap-2">
      <span className="w-[4.5rem] shrink-0 text-[13px] text-muted-foreground">{label}</span>
      <div
        role="meter"
        aria-label={`${label} level`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        data-testid={testId}
        className="h-2 min-w-0 flex-1 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full rounded-full bg-accent transition-[width] duration-100" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

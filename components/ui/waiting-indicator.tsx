/** Three softly breathing dots; the animation stops when reduced motion is preferred. */
export function WaitingIndicator() {
  return (
    <span aria-hidden="true" className="inline-flex items-center gap-1">
      {[0, 1, 2].map((index) => (
        <span key={index} className="lwc-breathe size-1.5 rounded-full bg-accent" style={{ animationDelay: `${index * 0.25}s` }} />
      ))}
    </span>
  );
}

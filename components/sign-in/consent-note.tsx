const POINTS = [
  { title: "Uses your plan.", text: "Messages count against your own ChatGPT plan's limits." },
  { title: "Passes through this server.", text: "Your prompts travel through this app's server to ChatGPT." },
  { title: "Tokens stay on the server.", text: "This page never sees your sign-in tokens." },
  { title: "Sign out any time.", text: "Signing out deletes your session from the server." },
];

/** What signing in means, shown before any device code is requested. */
export function ConsentNote() {
  return (
    <section data-testid="consent-note" aria-labelledby="consent-heading" className="rounded-xl bg-muted px-4 py-3.5">
      <h2 id="consent-heading" className="text-[13px] font-semibold text-foreground">
        Before you continue
      </h2>
      <ul className="mt-2 space-y-1.5 text-[13px] leading-5 text-muted-foreground">
        {POINTS.map((point) => (
          <li key={point.title} className="flex gap-2">
            <span aria-hidden="true" className="mt-[7px] size-1.5 shrink-0 rounded-full bg-muted-foreground/60" />
            <span>
              <span className="font-medium text-foreground">{point.title}</span> {point.text}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

import type { Ref } from "react";
import { primaryButton } from "./button-styles";
import { ConsentNote } from "./consent-note";

interface SignInScreenProps {
  onSignIn: () => void;
  busy: boolean;
  /** Why the person is back here (a login that ended on its own), shown above the button. */
  notice?: string | null;
  /** The screen's heading; focus moves here when a user action brings this screen up. */
  headingRef?: Ref<HTMLHeadingElement>;
}

/** The first screen: what the app does, what signing in means, and one clear button. */
export function SignInScreen({ onSignIn, busy, notice, headingRef }: SignInScreenProps) {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 ref={headingRef} tabIndex={-1} className="text-2xl font-semibold tracking-tight text-balance">Chat with your ChatGPT plan</h1>
        <p className="mt-2 text-[15px] leading-6 text-muted-foreground">
          Sign in with your ChatGPT account to use your plan&apos;s models here. You&apos;ll approve the sign-in on
          ChatGPT&apos;s own page with a one-time code.
        </p>
      </div>
      {notice && (
        <p role="status" data-testid="signed-out-reason" className="rounded-xl border border-border bg-muted px-4 py-3 text-sm leading-6 text-foreground">
          {notice}
        </p>
      )}
      <ConsentNote />
      <button type="button" data-testid="sign-in-button" className={`${primaryButton} w-full`} onClick={onSignIn} disabled={busy} aria-busy={busy}>
        {busy ? "Getting a code…" : "Sign in with ChatGPT"}
      </button>
    </div>
  );
}

/** Shown instead of the sign-in when the server runs with model access turned off (LWC_RESPONSES_PROXY=off). */
export function ModelAccessOff() {
  return (
    <div className="flex flex-col gap-3" data-testid="model-access-off">
      <h1 className="text-2xl font-semibold tracking-tight text-balance">Model access is turned off</h1>
      <p className="text-[15px] leading-6 text-muted-foreground">
        Model access is turned off on this server, so signing in would not let you chat. Nothing was sent to
        ChatGPT. Please try again later or ask whoever runs this site.
      </p>
    </div>
  );
}

import type { Ref } from "react";
import type { ProviderSessionError } from "@/lib/client/session-error";
import type { SignInOptions } from "@/lib/client/session-state";
import { CHATGPT_SETTINGS_URL, SIWC_INTEREST_FORM_URL } from "@/lib/client/siwc";
import { primaryButton, secondaryButton, secondaryLargeButton } from "../ui/button-styles";
import { ConsentNote } from "./consent-note";
import { ContinueWithChatGPT } from "./continue-with-chatgpt";

interface SignInScreenProps {
  /** Starts the device-code sign-in. */
  onSignIn: () => void;
  /** Continue with ChatGPT (Sign in with ChatGPT); `newRegistration` registers the app for another account. */
  onContinueWithChatGPT: (options?: { newRegistration?: boolean }) => void;
  /** The ways this server offers (device code only when it does not say). */
  options?: SignInOptions;
  /** A device code is being asked for. */
  busy: boolean;
  /** The page is on its way to ChatGPT. */
  redirecting?: boolean;
  /** Why the person is back here (a login that ended on its own), shown above the button. */
  notice?: string | null;
  /** A Continue with ChatGPT that came back failed. */
  signInError?: ProviderSessionError | null;
  /** The last sign-out could not confirm that ChatGPT revoked this app's access. */
  revocationUnconfirmed?: boolean;
  /** The screen's heading; focus moves here when a user action brings this screen up. */
  headingRef?: Ref<HTMLHeadingElement>;
}

const DEVICE_ONLY = { methods: ["device"] } satisfies SignInOptions;

function introduction(device: boolean, siwc: boolean): string {
  if (device && siwc) {
    return "Sign in with your ChatGPT account to use your plan's models here: continue with ChatGPT and allow this app on ChatGPT's page, or approve a one-time code there.";
  }
  if (siwc) return "Sign in with your ChatGPT account to use your plan's models here. You'll allow this app on ChatGPT's own page.";
  return "Sign in with your ChatGPT account to use your plan's models here. You'll approve the sign-in on ChatGPT's own page with a one-time code.";
}

/** Why Continue with ChatGPT is not offered on this page, and where a hosted app applies. */
function NeedsLoopback() {
  return (
    <p data-testid="siwc-needs-loopback" className="rounded-xl border border-border px-4 py-3 text-[13px] leading-5 text-muted-foreground">
      Continue with ChatGPT needs this app running on your own computer, opened at 127.0.0.1, where ChatGPT sends the
      sign-in back. A hosted app needs OpenAI&apos;s approval first:{" "}
      <a href={SIWC_INTEREST_FORM_URL} target="_blank" rel="noopener noreferrer" className="font-medium text-foreground underline underline-offset-2">
        apply with the Sign in with ChatGPT interest form
      </a>
      .
    </p>
  );
}

/** The first screen: what the app does, what signing in means, and the way (or two ways) to sign in. */
export function SignInScreen({
  onSignIn,
  onContinueWithChatGPT,
  options = DEVICE_ONLY,
  busy,
  redirecting = false,
  notice,
  signInError,
  revocationUnconfirmed = false,
  headingRef,
}: SignInScreenProps) {
  const device = options.methods.includes("device");
  const siwcOffered = options.methods.includes("siwc");
  const siwcHere = siwcOffered && options.siwc !== "needs_loopback";
  // Beside Continue with ChatGPT the device code is the other, equally sized way; alone it is the one.
  const deviceLabel = siwcOffered ? "Sign in with a one-time code" : "Sign in with ChatGPT";
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 ref={headingRef} tabIndex={-1} className="text-2xl font-semibold tracking-tight text-balance">Chat with your ChatGPT plan</h1>
        <p className="mt-2 text-[15px] leading-6 text-muted-foreground">{introduction(device, siwcHere)}</p>
      </div>
      {notice && (
        <p role="status" data-testid="signed-out-reason" className="rounded-xl border border-border bg-muted px-4 py-3 text-sm leading-6 text-foreground">
          {notice}
        </p>
      )}
      {revocationUnconfirmed && (
        <p role="status" data-testid="revocation-unconfirmed" className="rounded-xl border border-border bg-muted px-4 py-3 text-sm leading-6 text-foreground">
          You&apos;re signed out here, but ChatGPT did not confirm that it revoked this app&apos;s access. To be sure, disconnect
          the app in your{" "}
          <a href={CHATGPT_SETTINGS_URL} target="_blank" rel="noopener noreferrer" className="font-medium underline underline-offset-2">
            ChatGPT settings
          </a>
          .
        </p>
      )}
      {signInError && (
        <div role="alert" data-testid="signin-error" data-error-code={signInError.code} className="rounded-xl border border-destructive/25 bg-destructive-soft px-4 py-3 text-sm leading-6 text-foreground">
          <p>{signInError.message}</p>
          {signInError.code === "account_mismatch" && siwcHere && (
            <button type="button" data-testid="siwc-new-registration" onClick={() => onContinueWithChatGPT({ newRegistration: true })} className={`${secondaryButton} mt-2 h-8`}>
              Register the app for this account
            </button>
          )}
        </div>
      )}
      <ConsentNote />
      <div className="flex flex-col gap-3">
        {siwcHere && <ContinueWithChatGPT onClick={() => onContinueWithChatGPT()} redirecting={redirecting} disabled={busy} className="w-full" />}
        {device && (
          <button
            type="button"
            data-testid="sign-in-button"
            className={`${siwcHere ? secondaryLargeButton : primaryButton} w-full`}
            onClick={onSignIn}
            disabled={busy || redirecting}
            aria-busy={busy}
          >
            {busy ? "Getting a code…" : deviceLabel}
          </button>
        )}
        {siwcOffered && !siwcHere && <NeedsLoopback />}
      </div>
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

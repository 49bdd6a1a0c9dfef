"use client";

import { describeSessionErrorCode } from "@/lib/client/session-error";
import { useProviderSession } from "@/lib/client/use-provider-session";
import { AuthLayout } from "./auth-layout";
import { ChatWorkspace } from "./chat-workspace";
import { DeviceCodePanel } from "./device-code-panel";
import { LoginEndState } from "./login-end-state";
import { SignInScreen } from "./sign-in-screen";

const EXPIRED_MESSAGE = "Codes last 15 minutes. Get a new one and enter it on the ChatGPT page.";
const SESSION_ENDED_MESSAGE = "Your sign-in is no longer valid (it expired or was signed out elsewhere). Sign in again to continue.";
const DENIED_MESSAGE = "The request was declined on the ChatGPT page. You can start again whenever you like.";

/** The whole app: picks the screen from the session state. */
export function ProviderApp() {
  const session = useProviderSession();
  const { status, state, error, busy } = session;

  if (status === "authenticated" && session.user) {
    return (
      <ChatWorkspace
        user={session.user}
        onSignOut={session.signOut}
        onSignInAgain={session.signIn}
        onSessionLost={session.refresh}
        signingOut={busy}
        sessionError={error?.message ?? null}
      />
    );
  }

  return (
    <AuthLayout>
      {status === "loading" ? (
        <div role="status" className="flex items-center justify-center gap-3 py-16 text-sm text-muted-foreground">
          <span aria-hidden="true" className="size-4 animate-spin rounded-full border-2 border-border border-t-foreground motion-reduce:animate-none" />
          Loading…
        </div>
      ) : status === "pending" && state?.userCode && state.verificationUrl ? (
        <DeviceCodePanel
          userCode={state.userCode}
          verificationUrl={state.verificationUrl}
          secondsLeft={session.secondsLeft}
          pollWarning={error?.message ?? session.pollWarning}
          onCancel={session.signOut}
          busy={busy}
        />
      ) : error ? (
        <LoginEndState kind="error" code={error.code} message={error.message} onNewCode={session.signIn} busy={busy} />
      ) : status === "expired" ? (
        <LoginEndState
          kind="expired"
          code={state?.error}
          message={state?.error === "refresh_token_invalid" ? SESSION_ENDED_MESSAGE : EXPIRED_MESSAGE}
          onNewCode={session.signIn}
          busy={busy}
        />
      ) : status === "error" && (state?.error === "authorization_denied" || state?.error === "access_denied") ? (
        <LoginEndState kind="denied" code={state.error} message={DENIED_MESSAGE} onNewCode={session.signIn} busy={busy} />
      ) : status === "error" ? (
        <LoginEndState
          kind="error"
          code={state?.error}
          message={describeSessionErrorCode(state?.error ?? "unknown_error", state?.message).message}
          onNewCode={session.signIn}
          busy={busy}
        />
      ) : (
        <SignInScreen onSignIn={session.signIn} busy={busy} />
      )}
    </AuthLayout>
  );
}

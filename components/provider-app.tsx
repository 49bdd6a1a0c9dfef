"use client";

import { useEffect, useRef } from "react";
import { onDemand } from "@/lib/client/on-demand";
import { describeSessionErrorCode } from "@/lib/client/session-error";
import { useProviderSession } from "@/lib/client/use-provider-session";
import { AuthLayout } from "./sign-in/auth-layout";
import { DeviceCodePanel } from "./sign-in/device-code-panel";
import { LoginEndState } from "./sign-in/login-end-state";
import { ModelAccessOff, SignInScreen } from "./sign-in/sign-in-screen";
import { LoadFailedAlert } from "./ui/load-failed-alert";
import { LoadingStatus } from "./ui/loading-status";
import { useOnDemand } from "./ui/use-on-demand";

// The chat (AI SDK, markdown, highlighting: about 1.6 MB of script) is not part of the sign-in
// screen, which stays small (`npm run bench` measures it). It is fetched and evaluated while a code
// is pending, so approving the code does not also wait for the chat's code to download and run.
const chatWorkspace = onDemand(() => import("./chat-workspace"));

const EXPIRED_MESSAGE = "Codes last 15 minutes. Get a new one and enter it on the ChatGPT page.";
const SESSION_ENDED_MESSAGE = "Your sign-in is no longer valid (it expired or was signed out elsewhere). Sign in again to continue.";
const DENIED_MESSAGE = "The request was declined on the ChatGPT page. You can start again whenever you like.";

type Screen = "loading" | "chat" | "pending" | "sign-in-error" | "expired" | "denied" | "error" | "sign-in";

/**
 * Keeps keyboard and screen-reader users oriented across screen changes. The button that started a
 * change (Sign in, Get a new code, Cancel, Sign out, …) disappears with its screen and focus would
 * fall back to <body>; instead it moves to the new screen's heading (tabIndex -1). Not on the first
 * load, and never away from an element that already has focus (the chat screen focuses its input).
 * Besides after a user action, it also moves when a screen change the server caused (the code
 * expired, the sign-in was approved) removed the element that had focus.
 */
function useFocusHeadingOnScreenChange(screen: Screen) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const userActedRef = useRef(false);
  const previousScreenRef = useRef(screen);
  const lastFocusedRef = useRef<Element | null>(null);

  useEffect(() => {
    const onFocusIn = (event: FocusEvent) => {
      lastFocusedRef.current = event.target instanceof Element ? event.target : null;
    };
    document.addEventListener("focusin", onFocusIn);
    return () => document.removeEventListener("focusin", onFocusIn);
  }, []);

  useEffect(() => {
    const previous = previousScreenRef.current;
    if (previous === screen) return;
    previousScreenRef.current = screen;
    const userActed = userActedRef.current;
    userActedRef.current = false;
    if (previous === "loading") return; // the first load: leave focus where the browser put it

    const active = document.activeElement;
    const focusLost = active === null || active === document.body;
    const focusedElementRemoved = lastFocusedRef.current !== null && !lastFocusedRef.current.isConnected;
    if (focusLost && (userActed || focusedElementRemoved)) headingRef.current?.focus();
  }, [screen]);

  /** Wraps a user action whose result changes the screen. */
  const userAction = (action: () => Promise<void>) => () => {
    userActedRef.current = true;
    void action();
  };

  return { headingRef, userAction };
}

/**
 * The whole app: picks the screen from the session state. `modelAccess` is false when the server
 * runs with the model proxy off (LWC_RESPONSES_PROXY=off): then no sign-in is offered. `webSearch` is
 * false with LWC_WEB_SEARCH=off: then the chat offers no "Search the web" switch.
 */
export function ProviderApp({ modelAccess = true, webSearch = true }: { modelAccess?: boolean; webSearch?: boolean }) {
  const session = useProviderSession();
  const { status, state, error, busy } = session;

  const screen: Screen =
    status === "authenticated" && session.user
      ? "chat"
      : status === "loading"
        ? "loading"
        : status === "pending" && state?.userCode && state.verificationUrl
          ? "pending"
          : error
            ? "sign-in-error"
            : status === "expired"
              ? "expired"
              : status === "error" && state?.error === "authorization_denied"
                ? "denied"
                : status === "error"
                  ? "error"
                  : "sign-in";

  const { headingRef, userAction } = useFocusHeadingOnScreenChange(screen);

  useEffect(() => {
    if (screen === "pending") chatWorkspace.load().catch(() => undefined); // the chat's own load reports a failure
  }, [screen]);
  const chat = useOnDemand(chatWorkspace, screen === "chat");
  const signIn = userAction(session.signIn);
  const signOut = userAction(session.signOut);
  const { continueWithChatGPT, signInOptions } = session;
  // Signed out with only Continue with ChatGPT on offer, a screen that offers a new device code would lead nowhere.
  const deviceOffered = signInOptions.methods.includes("device");
  // A sign-in that ended (expired, signed out elsewhere) comes back the way it was made.
  const signInAgain = session.signInMethod === "siwc" ? () => continueWithChatGPT() : signIn;
  const signInScreen = (notice: string | null) => (
    <SignInScreen
      onSignIn={signIn}
      onContinueWithChatGPT={continueWithChatGPT}
      options={signInOptions}
      busy={busy}
      redirecting={session.redirecting}
      notice={notice}
      signInError={session.signInError}
      revocationUnconfirmed={session.revocationUnconfirmed}
      headingRef={headingRef}
    />
  );

  if (!modelAccess) {
    return (
      <AuthLayout>
        <ModelAccessOff />
      </AuthLayout>
    );
  }

  if (screen === "chat" && session.user) {
    if (chat.status === "loading") return <LoadingStatus />;
    if (chat.status === "failed") {
      return (
        <AuthLayout>
          <LoadFailedAlert title="The chat did not load" onRetry={chat.retry} autoFocus />
        </AuthLayout>
      );
    }
    const { ChatWorkspace } = chat.module;
    return (
      <ChatWorkspace
        user={session.user}
        history={session.state?.history}
        onSignOut={signOut}
        onSignInAgain={signInAgain}
        onSessionLost={session.refresh}
        signingOut={busy}
        sessionError={error?.message ?? null}
        headingRef={headingRef}
        webSearchAvailable={webSearch}
        capabilities={session.capabilities ?? undefined}
        siwc={session.siwc}
        onDismissPlanNotice={() => void session.dismissPlanNotice()}
        onEnablePlanUsage={() => continueWithChatGPT({ consent: true })}
        redirecting={session.redirecting}
      />
    );
  }

  return (
    <AuthLayout>
      {screen === "loading" ? (
        <LoadingStatus />
      ) : screen === "pending" && state?.userCode && state.verificationUrl ? (
        <DeviceCodePanel
          userCode={state.userCode}
          verificationUrl={state.verificationUrl}
          secondsLeft={session.secondsLeft}
          nextCheckInSeconds={session.nextCheckInSeconds}
          pollWarning={error?.message ?? session.pollWarning}
          onCancel={signOut}
          busy={busy}
          headingRef={headingRef}
        />
      ) : screen === "sign-in-error" && error && !deviceOffered ? (
        signInScreen(error.message)
      ) : screen === "sign-in-error" && error ? (
        <LoginEndState kind="error" code={error.code} message={error.message} onNewCode={signIn} busy={busy} headingRef={headingRef} />
      ) : (screen === "expired" || screen === "denied" || screen === "error") && !deviceOffered ? (
        signInScreen(
          screen === "expired" && state?.error === "refresh_token_invalid"
            ? SESSION_ENDED_MESSAGE
            : describeSessionErrorCode(state?.error ?? "unknown_error", state?.message).message,
        )
      ) : screen === "expired" && state?.error === "refresh_token_invalid" && signInOptions.methods.includes("siwc") ? (
        signInScreen(SESSION_ENDED_MESSAGE)
      ) : screen === "expired" ? (
        <LoginEndState
          kind="expired"
          code={state?.error}
          message={state?.error === "refresh_token_invalid" ? SESSION_ENDED_MESSAGE : EXPIRED_MESSAGE}
          onNewCode={signIn}
          busy={busy}
          headingRef={headingRef}
        />
      ) : screen === "denied" ? (
        <LoginEndState kind="denied" code={state?.error} message={DENIED_MESSAGE} onNewCode={signIn} busy={busy} headingRef={headingRef} />
      ) : screen === "error" ? (
        <LoginEndState
          kind="error"
          code={state?.error}
          message={describeSessionErrorCode(state?.error ?? "unknown_error", state?.message).message}
          onNewCode={signIn}
          busy={busy}
          headingRef={headingRef}
        />
      ) : (
        signInScreen(session.signedOutReason)
      )}
    </AuthLayout>
  );
}

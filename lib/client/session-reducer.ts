import { deviceCodeSecondsLeft } from "./server-clock";
import type { ProviderSessionError } from "./session-error";
import {
  capabilitiesOf,
  nextCheckDelayMs,
  signInMethodOf,
  signInOptionsOf,
  type PublicSessionState,
  type SessionCapabilities,
  type SessionStatus,
  type SessionUser,
  type SignInMethod,
  type SignInOptions,
  type SiwcSessionInfo,
} from "./session-state";

/**
 * What the page knows about its login, as one value that only `sessionReducer` changes: the
 * latest state from the server, what the person is doing (signing in or out, on the way to
 * ChatGPT), what went wrong, and the clocks of the device-code countdowns. useProviderSession
 * runs the requests and the timers and reports each event here.
 */
export interface SessionModel {
  /** The latest public session state from the server; null until the first answer. */
  state: PublicSessionState | null;
  /** The last failed action (reading the session, signing in or out). Cleared by the next answer. */
  error: ProviderSessionError | null;
  /** Set while polling keeps failing; polling goes on. */
  pollWarning: string | null;
  /** A sign-in or sign-out request is in flight. */
  busy: boolean;
  /** A sign-out started here is under way: the signed-out state it brings is no surprise. */
  signingOut: boolean;
  /** Why a signed-in session ended without the person signing out here; cleared by the next sign-in. */
  signedOutReason: string | null;
  /** The ways to sign in, from the latest signed-out state that said. */
  signInOptions: SignInOptions;
  /** Continue with ChatGPT was pressed: the page is on its way there. */
  redirecting: boolean;
  /** A Continue with ChatGPT that came back failed. */
  signInError: ProviderSessionError | null;
  /** The last sign-out of a SIWC session could not confirm that ChatGPT revoked the app's access. */
  revocationUnconfirmed: boolean;
  /** When (browser clock) the next GET /status is due, while pending. */
  nextCheckAt: number | null;
  /** The browser clock the countdowns were last counted at. */
  now: number;
  /** Server clock minus browser clock, in ms, from the `Date` header of the latest session reply. */
  serverClockOffset: number;
}

export type SessionEvent =
  /** An answer from /session, /status, /login or /logout, received at `at` (browser clock). */
  | { type: "received"; state: PublicSessionState; at: number }
  /** The first read of the session answered; a Continue with ChatGPT that failed came back with this error. */
  | { type: "first-read"; state: PublicSessionState; at: number; returnedSignInError: ProviderSessionError | null }
  /** The first read failed: the page shows the sign-in screen with the error. */
  | { type: "first-read-failed"; error: ProviderSessionError }
  /** Reading the session again, or a sign-in or sign-out request, failed. */
  | { type: "failed"; error: ProviderSessionError }
  /** A poll of /status failed; the next one is due at `nextCheckAt`. */
  | { type: "poll-failed"; error: ProviderSessionError; nextCheckAt: number }
  | { type: "sign-in-started" }
  | { type: "sign-out-started" }
  | { type: "sign-out-ended" }
  | { type: "request-started" }
  | { type: "request-ended" }
  | { type: "redirect-started" }
  /** The page came back from ChatGPT's with the browser's Back button, restored as it was. */
  | { type: "page-restored" }
  | { type: "plan-notice-dismissed" }
  | { type: "clock-ticked"; at: number }
  | { type: "server-clock-measured"; offset: number };

export const SESSION_ENDED_REASON =
  "Your sign-in ended: it expired or was signed out in another tab or device. Sign in again to continue; your conversations are still here.";

export function initialSessionModel(now: number): SessionModel {
  return {
    state: null,
    error: null,
    pollWarning: null,
    busy: false,
    signingOut: false,
    signedOutReason: null,
    signInOptions: signInOptionsOf(null),
    redirecting: false,
    signInError: null,
    revocationUnconfirmed: false,
    nextCheckAt: null,
    now,
    serverClockOffset: 0,
  };
}

/** When the next GET /status is due after an answer received at `at`, or null when the state is not pending. */
export function nextCheckAfter(state: PublicSessionState, at: number): number | null {
  return state.status === "pending" ? at + nextCheckDelayMs(state) : null;
}

function received(model: SessionModel, next: PublicSessionState, at: number): SessionModel {
  const endedHere = model.state?.status === "authenticated" && next.status === "unauthenticated" && !model.signingOut;
  return {
    ...model,
    state: next,
    signedOutReason: endedHere ? SESSION_ENDED_REASON : model.signedOutReason,
    signInOptions: typeof next.signIn === "object" ? next.signIn : model.signInOptions,
    revocationUnconfirmed: model.revocationUnconfirmed || next.revocation === "unconfirmed",
    nextCheckAt: nextCheckAfter(next, at),
    now: at,
    error: null,
    pollWarning: null,
  };
}

export function sessionReducer(model: SessionModel, event: SessionEvent): SessionModel {
  switch (event.type) {
    case "received":
      return received(model, event.state, event.at);
    case "first-read": {
      const next = received(model, event.state, event.at);
      return event.returnedSignInError && event.state.status !== "authenticated" ? { ...next, signInError: event.returnedSignInError } : next;
    }
    case "first-read-failed":
      return { ...model, error: event.error, state: { status: "unauthenticated" } };
    case "failed":
      return { ...model, error: event.error };
    case "poll-failed":
      return { ...model, pollWarning: `${event.error.message} Still checking…`, nextCheckAt: event.nextCheckAt };
    case "sign-in-started":
      return { ...model, signedOutReason: null, signInError: null, revocationUnconfirmed: false };
    case "sign-out-started":
      return { ...model, signingOut: true, revocationUnconfirmed: false };
    case "sign-out-ended":
      return { ...model, signingOut: false };
    case "request-started":
      return { ...model, busy: true };
    case "request-ended":
      return { ...model, busy: false };
    case "redirect-started":
      return { ...model, redirecting: true };
    case "page-restored":
      return { ...model, redirecting: false };
    case "plan-notice-dismissed": {
      const { state } = model;
      return state?.siwc ? { ...model, state: { ...state, siwc: { ...state.siwc, showPlanNotice: false } } } : model;
    }
    case "clock-ticked":
      return { ...model, now: event.at };
    case "server-clock-measured":
      return { ...model, serverClockOffset: event.offset };
  }
}

/** What the page shows of the model: the status, who is signed in and how, and the countdowns. */
interface SessionView {
  /** `loading` until the first /session answer arrives. */
  status: "loading" | SessionStatus;
  user: SessionUser | null;
  signInMethod: SignInMethod;
  siwc: SiwcSessionInfo | null;
  /** Signed in: what the session may do besides chat (voice, agent voice, pictures); null otherwise. */
  capabilities: SessionCapabilities | null;
  /** Seconds until the device code expires (pending only), on the server's clock. */
  secondsLeft: number | null;
  /** Seconds until the page checks the sign-in again (pending only); 0 while a check is on its way. */
  nextCheckInSeconds: number | null;
}

export function sessionView(model: SessionModel): SessionView {
  const { state, now, nextCheckAt } = model;
  const pending = state?.status === "pending";
  const authenticated = state?.status === "authenticated";
  const method = authenticated ? signInMethodOf(state) : "device";
  return {
    status: state?.status ?? "loading",
    user: authenticated ? (state.user ?? null) : null,
    signInMethod: method,
    siwc: authenticated && method === "siwc" ? (state.siwc ?? null) : null,
    capabilities: authenticated ? capabilitiesOf(state) : null,
    secondsLeft: pending && state.expiresAt !== undefined ? deviceCodeSecondsLeft(state.expiresAt, now, model.serverClockOffset) : null,
    nextCheckInSeconds: pending && nextCheckAt !== null ? Math.max(0, Math.ceil((nextCheckAt - now) / 1000)) : null,
  };
}

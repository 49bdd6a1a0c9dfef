"use client";

import { useCallback, useEffect, useMemo, useReducer, useRef, type Dispatch, type RefObject } from "react";
import { normalizeBasePath } from "@/lib/shared/base-path";
import { withServerClock } from "./server-clock";
import { createSessionApi, type SessionApi } from "./session-api";
import { describeSessionError, type ProviderSessionError } from "./session-error";
import { initialSessionModel, nextCheckAfter, sessionReducer, sessionView, type SessionEvent, type SessionModel } from "./session-reducer";
import {
  DEFAULT_POLL_INTERVAL_SECONDS,
  type PublicSessionState,
  type SessionStatus,
  type SessionUser,
  type SignInMethod,
  type SignInOptions,
  type SessionCapabilities,
  type SiwcSessionInfo,
} from "./session-state";
import { describeSignInError, siwcStartUrl, takeSignInError } from "./siwc";

export interface UseProviderSessionOptions {
  /** Where the session service is mounted. Default `/api/provider`. */
  basePath?: string;
  /** Custom fetch (tests, other origins). Credentials are always included. */
  fetch?: typeof fetch;
}

export interface ProviderSession {
  /** `loading` until the first /session answer arrives. */
  status: "loading" | SessionStatus;
  /** The latest public session state from the server. */
  state: PublicSessionState | null;
  user: SessionUser | null;
  /**
   * Seconds until the device code expires (pending only), updated every second, counted on the
   * server's clock (estimated from its replies' `Date` header), so a browser clock that is off does
   * not shorten or lengthen it. At 0 the code stays pending until the server itself says `expired`.
   */
  secondsLeft: number | null;
  /**
   * Seconds until the page checks the sign-in again (pending only), updated every second; 0 while a
   * check is on its way.
   */
  nextCheckInSeconds: number | null;
  /** The last failed action (reading the session, signing in or out), in words. Cleared by the next success. */
  error: ProviderSessionError | null;
  /** Set while polling keeps failing to reach the server; polling goes on at the same interval. */
  pollWarning: string | null;
  /** A sign-in or sign-out request is in flight. */
  busy: boolean;
  /**
   * Why a signed-in session ended without the person signing out here (it expired or was signed out
   * elsewhere), for the sign-in screen to say; null otherwise. Cleared by the next sign-in.
   */
  signedOutReason: string | null;
  /**
   * The ways to sign in, from the latest signed-out state that said (device code only from a server
   * without Sign in with ChatGPT).
   */
  signInOptions: SignInOptions;
  /** Signed in: how (`device` or `siwc`). */
  signInMethod: SignInMethod;
  /** Signed in with SIWC: plan usage granted, and whether the one-time plan notice is due; else null. */
  siwc: SiwcSessionInfo | null;
  /** Signed in: what the session may do besides chat (voice, agent voice, pictures); null otherwise. */
  capabilities: SessionCapabilities | null;
  /** The page is on its way to ChatGPT (Continue with ChatGPT was pressed). */
  redirecting: boolean;
  /** A Continue with ChatGPT that came back failed (`?signin_error=` on the page), in words. */
  signInError: ProviderSessionError | null;
  /** The last sign-out of a SIWC session could not confirm that ChatGPT revoked the app's access. */
  revocationUnconfirmed: boolean;
  /** POST /login: starts (or resumes) the device-code flow. */
  signIn(): Promise<void>;
  /**
   * Continue with ChatGPT: navigates the page to `{basePath}/siwc/start` (`consent` asks for plan
   * usage again, `newRegistration` registers the app for another account).
   */
  continueWithChatGPT(options?: { consent?: boolean; newRegistration?: boolean }): void;
  /** "Got it" on the one-time plan notice: hides it now and tells the server (POST /siwc/notice). */
  dismissPlanNotice(): Promise<void>;
  /** POST /logout: deletes the session on the server. */
  signOut(): Promise<void>;
  /** GET /session again (never polls upstream). */
  refresh(): Promise<void>;
}

/** The countdown clock ticks this long after a whole second, so it never reads the second before. */
const TICK_MARGIN_MS = 20;

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/**
 * The browser side of the device-code login: reads /session on mount (a pending login survives a
 * reload of the tab that started it and resumes polling; any other tab, or a page that finds a
 * cookie it did not get itself, reads signed out and its sign-in starts its own login), polls
 * /status one request at a time, each when the server says the provider may be asked again (its
 * `nextCheckInMs`: never faster than the interval, and never a whole interval late), and stops at
 * authenticated, expired or error. What it knows is one value changed by `sessionReducer`
 * (session-reducer.ts); this hook runs the requests and the timers.
 */
export function useProviderSession(options: UseProviderSessionOptions = {}): ProviderSession {
  const { basePath, fetch: customFetch } = options;
  const apiBase = normalizeBasePath(basePath);
  const [model, dispatch] = useReducer(sessionReducer, undefined, () => initialSessionModel(Date.now()));
  const api: SessionApi = useMemo(() => {
    const baseFetch = customFetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    const measured = (offset: number) => dispatch({ type: "server-clock-measured", offset });
    return createSessionApi({ basePath, fetch: withServerClock(baseFetch, measured) });
  }, [basePath, customFetch]);
  // Set from the moment a sign-in or sign-out starts until it settles: a second one in between is ignored.
  const busyRef = useRef(false);

  const refresh = useCallback(async () => {
    try {
      dispatch({ type: "received", state: await api.getSession(), at: Date.now() });
    } catch (caught) {
      if (!isAbort(caught)) dispatch({ type: "failed", error: describeSessionError(caught) });
    }
  }, [api]);

  // Back from ChatGPT's page with the browser's Back button (the page restored as it was): not on the way any more.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) dispatch({ type: "page-restored" });
    };
    window.addEventListener("pageshow", onPageShow);
    return () => window.removeEventListener("pageshow", onPageShow);
  }, []);

  // A Continue with ChatGPT that failed comes back as ?signin_error=<code>: taken from the URL at
  // once (kept here across StrictMode's second run), said with the first session answer.
  const returnedErrorRef = useRef<string | null | undefined>(undefined);

  // First read of the session; aborted if the component goes away (or StrictMode remounts it).
  useEffect(() => {
    const controller = new AbortController();
    returnedErrorRef.current ??= takeSignInError(window.location, window.history);
    api
      .getSession(controller.signal)
      .then((state) => {
        if (controller.signal.aborted) return;
        const code = returnedErrorRef.current;
        dispatch({ type: "first-read", state, at: Date.now(), returnedSignInError: code ? { code, message: describeSignInError(code) } : null });
      })
      .catch((caught: unknown) => {
        if (controller.signal.aborted || isAbort(caught)) return;
        dispatch({ type: "first-read-failed", error: describeSessionError(caught) });
      });
    return () => controller.abort();
  }, [api]);

  const runRequest = useCallback(async (request: () => Promise<PublicSessionState>) => {
    if (busyRef.current) return;
    busyRef.current = true;
    dispatch({ type: "request-started" });
    try {
      dispatch({ type: "received", state: await request(), at: Date.now() });
    } catch (caught) {
      dispatch({ type: "failed", error: describeSessionError(caught) });
    } finally {
      busyRef.current = false;
      dispatch({ type: "request-ended" });
    }
  }, []);

  const signIn = useCallback(() => {
    dispatch({ type: "sign-in-started" });
    return runRequest(() => api.login());
  }, [api, runRequest]);
  const continueWithChatGPT = useCallback(
    (startOptions: { consent?: boolean; newRegistration?: boolean } = {}) => {
      if (busyRef.current) return;
      dispatch({ type: "redirect-started" });
      window.location.assign(siwcStartUrl(apiBase, startOptions));
    },
    [apiBase],
  );
  const dismissPlanNotice = useCallback(async () => {
    dispatch({ type: "plan-notice-dismissed" });
    try {
      await api.dismissPlanNotice();
    } catch {
      // Hidden on this page all the same; the server shows it again on the next load, where "Got it" is asked once more.
    }
  }, [api]);
  const signOut = useCallback(async () => {
    dispatch({ type: "sign-out-started" });
    try {
      await runRequest(() => api.logout());
    } finally {
      dispatch({ type: "sign-out-ended" });
    }
  }, [api, runRequest]);

  useStatusPolling(api, model, dispatch);
  useCountdownClock(model, dispatch);

  return {
    ...sessionView(model),
    state: model.state,
    error: model.error,
    pollWarning: model.pollWarning,
    busy: model.busy,
    signedOutReason: model.signedOutReason,
    signInOptions: model.signInOptions,
    redirecting: model.redirecting,
    signInError: model.signInError,
    revocationUnconfirmed: model.revocationUnconfirmed,
    signIn,
    continueWithChatGPT,
    dismissPlanNotice,
    signOut,
    refresh,
  };
}

/** The time the next /status is due, readable from timers without restarting them when it moves. */
function useNextCheckAt(model: SessionModel): RefObject<number | null> {
  const nextCheckAtRef = useRef(model.nextCheckAt);
  useEffect(() => {
    nextCheckAtRef.current = model.nextCheckAt;
  }, [model.nextCheckAt]);
  return nextCheckAtRef;
}

/** Polls /status while pending: one request at a time, each when the last answer said it is due. */
function useStatusPolling(api: SessionApi, model: SessionModel, dispatch: Dispatch<SessionEvent>): void {
  const nextCheckAtRef = useNextCheckAt(model);
  const { state } = model;
  const isPending = state?.status === "pending";
  const userCode = state?.userCode;
  const intervalSeconds = Math.max(1, state?.interval ?? DEFAULT_POLL_INTERVAL_SECONDS);

  useEffect(() => {
    if (!isPending) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waitUntil = (at: number | null) => {
      timer = setTimeout(poll, Math.max(0, (at ?? Date.now() + intervalSeconds * 1000) - Date.now()));
    };

    const poll = async () => {
      try {
        const next = await api.status(controller.signal);
        if (controller.signal.aborted) return;
        // The server decides expiry (it expires codes itself); the browser's clock may be off.
        const at = Date.now();
        dispatch({ type: "received", state: next, at });
        if (next.status === "pending") waitUntil(nextCheckAfter(next, at));
      } catch (caught) {
        if (controller.signal.aborted || isAbort(caught)) return;
        const nextCheckAt = Date.now() + intervalSeconds * 1000;
        dispatch({ type: "poll-failed", error: describeSessionError(caught), nextCheckAt });
        waitUntil(nextCheckAt);
      }
    };

    waitUntil(nextCheckAtRef.current);
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, dispatch, nextCheckAtRef, isPending, userCode, intervalSeconds]);
}

/**
 * A clock for the countdowns, only while a code is pending: every second, just after each whole
 * second before the next check, so "Next check in 3 s" counts down without skipping a number.
 */
function useCountdownClock(model: SessionModel, dispatch: Dispatch<SessionEvent>): void {
  const nextCheckAtRef = useNextCheckAt(model);
  const isPending = model.state?.status === "pending";
  useEffect(() => {
    if (!isPending) return;
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const current = Date.now();
      dispatch({ type: "clock-ticked", at: current });
      const untilCheck = (nextCheckAtRef.current ?? current) - current;
      timer = setTimeout(tick, (untilCheck > 0 ? untilCheck % 1000 || 1000 : 1000) + TICK_MARGIN_MS);
    };
    timer = setTimeout(tick, 1000);
    return () => clearTimeout(timer);
  }, [dispatch, nextCheckAtRef, isPending]);
}

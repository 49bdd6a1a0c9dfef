"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { normalizeBasePath } from "./base-path";
import { deviceCodeSecondsLeft, withServerClock } from "./server-clock";
import { createSessionApi, type SessionApi } from "./session-api";
import { describeSessionError, type ProviderSessionError } from "./session-error";
import {
  DEFAULT_POLL_INTERVAL_SECONDS,
  nextCheckDelayMs,
  signInMethodOf,
  signInOptionsOf,
  type PublicSessionState,
  type SessionStatus,
  type SessionUser,
  type SignInMethod,
  type SignInOptions,
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

const SESSION_ENDED_REASON = "Your sign-in ended: it expired or was signed out in another tab or device. Sign in again to continue; your conversations are still here.";

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
 * authenticated, expired or error.
 */
export function useProviderSession(options: UseProviderSessionOptions = {}): ProviderSession {
  const { basePath, fetch: customFetch } = options;
  const apiBase = normalizeBasePath(basePath);
  /** Server clock minus browser clock, in ms, from the `Date` header of the latest session reply. */
  const [serverClockOffset, setServerClockOffset] = useState(0);
  const api: SessionApi = useMemo(() => {
    const baseFetch = customFetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
    return createSessionApi({ basePath, fetch: withServerClock(baseFetch, setServerClockOffset) });
  }, [basePath, customFetch]);

  const [state, setState] = useState<PublicSessionState | null>(null);
  const [error, setError] = useState<ProviderSessionError | null>(null);
  const [pollWarning, setPollWarning] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(() => Date.now());
  const busyRef = useRef(false);
  const [signedOutReason, setSignedOutReason] = useState<string | null>(null);
  const [signInOptions, setSignInOptions] = useState<SignInOptions>(() => signInOptionsOf(null));
  const [redirecting, setRedirecting] = useState(false);
  const [signInError, setSignInError] = useState<ProviderSessionError | null>(null);
  const [revocationUnconfirmed, setRevocationUnconfirmed] = useState(false);
  const statusRef = useRef<SessionStatus | null>(null);
  const signingOutRef = useRef(false);
  /** When (browser clock) the next /status is due, while pending. */
  const [nextCheckAt, setNextCheckAt] = useState<number | null>(null);
  const nextCheckAtRef = useRef<number | null>(null);
  const scheduleCheck = useCallback((at: number | null) => {
    nextCheckAtRef.current = at;
    setNextCheckAt(at);
  }, []);

  const applyState = useCallback((next: PublicSessionState) => {
    if (statusRef.current === "authenticated" && next.status === "unauthenticated" && !signingOutRef.current) {
      setSignedOutReason(SESSION_ENDED_REASON);
    }
    statusRef.current = next.status;
    if (typeof next.signIn === "object") setSignInOptions(next.signIn);
    if (next.revocation === "unconfirmed") setRevocationUnconfirmed(true);
    const receivedAt = Date.now();
    scheduleCheck(next.status === "pending" ? receivedAt + nextCheckDelayMs(next) : null);
    setState(next);
    setNow(receivedAt);
    setError(null);
    setPollWarning(null);
  }, [scheduleCheck]);

  const refresh = useCallback(async () => {
    try {
      applyState(await api.getSession());
    } catch (caught) {
      if (!isAbort(caught)) setError(describeSessionError(caught));
    }
  }, [api, applyState]);

  // Back from ChatGPT's page with the browser's Back button (the page restored as it was): not on the way any more.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setRedirecting(false);
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
      .then((next) => {
        if (controller.signal.aborted) return;
        applyState(next);
        const code = returnedErrorRef.current;
        if (code && next.status !== "authenticated") setSignInError({ code, message: describeSignInError(code) });
      })
      .catch((caught: unknown) => {
        if (controller.signal.aborted || isAbort(caught)) return;
        setError(describeSessionError(caught));
        setState({ status: "unauthenticated" });
      });
    return () => controller.abort();
  }, [api, applyState]);

  const runAction = useCallback(
    async (action: () => Promise<PublicSessionState>) => {
      if (busyRef.current) return;
      busyRef.current = true;
      setBusy(true);
      try {
        applyState(await action());
      } catch (caught) {
        setError(describeSessionError(caught));
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [applyState],
  );

  const signIn = useCallback(() => {
    setSignedOutReason(null);
    setSignInError(null);
    setRevocationUnconfirmed(false);
    return runAction(() => api.login());
  }, [api, runAction]);
  const continueWithChatGPT = useCallback(
    (startOptions: { consent?: boolean; newRegistration?: boolean } = {}) => {
      if (busyRef.current) return;
      setRedirecting(true);
      window.location.assign(siwcStartUrl(apiBase, startOptions));
    },
    [apiBase],
  );
  const dismissPlanNotice = useCallback(async () => {
    setState((current) => (current?.siwc ? { ...current, siwc: { ...current.siwc, showPlanNotice: false } } : current));
    try {
      await api.dismissPlanNotice();
    } catch {
      // Hidden on this page all the same; the server shows it again on the next load, where "Got it" is asked once more.
    }
  }, [api]);
  const signOut = useCallback(async () => {
    signingOutRef.current = true;
    setRevocationUnconfirmed(false);
    try {
      await runAction(() => api.logout());
    } finally {
      signingOutRef.current = false;
    }
  }, [api, runAction]);

  const isPending = state?.status === "pending";
  const userCode = state?.userCode;
  const intervalSeconds = Math.max(1, state?.interval ?? DEFAULT_POLL_INTERVAL_SECONDS);
  const expiresAt = state?.expiresAt;

  // Poll /status while pending: one request at a time, each when the last answer said it is due.
  useEffect(() => {
    if (!isPending) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waitForNextCheck = () => {
      timer = setTimeout(poll, Math.max(0, (nextCheckAtRef.current ?? Date.now() + intervalSeconds * 1000) - Date.now()));
    };

    const poll = async () => {
      try {
        const next = await api.status(controller.signal);
        if (controller.signal.aborted) return;
        // The server decides expiry (it expires codes itself); the browser's clock may be off.
        applyState(next);
        if (next.status === "pending") waitForNextCheck();
      } catch (caught) {
        if (controller.signal.aborted || isAbort(caught)) return;
        const described = describeSessionError(caught);
        setPollWarning(`${described.message} Still checking…`);
        scheduleCheck(Date.now() + intervalSeconds * 1000);
        waitForNextCheck();
      }
    };

    waitForNextCheck();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, applyState, scheduleCheck, isPending, userCode, intervalSeconds]);

  // A clock for the countdowns, only while a code is pending: every second, just after each whole
  // second before the next check, so "Next check in 3 s" counts down without skipping a number.
  useEffect(() => {
    if (!isPending) return;
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const current = Date.now();
      setNow(current);
      const untilCheck = (nextCheckAtRef.current ?? current) - current;
      timer = setTimeout(tick, (untilCheck > 0 ? untilCheck % 1000 || 1000 : 1000) + TICK_MARGIN_MS);
    };
    timer = setTimeout(tick, 1000);
    return () => clearTimeout(timer);
  }, [isPending]);

  const secondsLeft = isPending && expiresAt !== undefined ? deviceCodeSecondsLeft(expiresAt, now, serverClockOffset) : null;
  const nextCheckInSeconds = isPending && nextCheckAt !== null ? Math.max(0, Math.ceil((nextCheckAt - now) / 1000)) : null;

  const authenticated = state?.status === "authenticated";
  return {
    status: state?.status ?? "loading",
    state,
    user: authenticated ? (state.user ?? null) : null,
    secondsLeft,
    nextCheckInSeconds,
    error,
    pollWarning,
    busy,
    signedOutReason,
    signInOptions,
    signInMethod: authenticated ? signInMethodOf(state) : "device",
    siwc: authenticated && signInMethodOf(state) === "siwc" ? (state.siwc ?? null) : null,
    redirecting,
    signInError,
    revocationUnconfirmed,
    signIn,
    continueWithChatGPT,
    dismissPlanNotice,
    signOut,
    refresh,
  };
}

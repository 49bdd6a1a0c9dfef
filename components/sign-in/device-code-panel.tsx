"use client";

import { useSyncExternalStore, type Ref } from "react";
import { formatCountdown } from "@/lib/client/format-time";
import { ghostButton, primaryButton } from "../ui/button-styles";
import { CopyButton } from "../ui/copy-button";
import { ExternalLinkIcon } from "../ui/icons";
import { QrCodeImage } from "./qr-code-image";
import { WaitingIndicator } from "../ui/waiting-indicator";

interface DeviceCodePanelProps {
  userCode: string;
  verificationUrl: string;
  secondsLeft: number | null;
  /** Seconds until the page checks for the approval again (0: checking now). */
  nextCheckInSeconds: number | null;
  pollWarning: string | null;
  onCancel: () => void;
  busy: boolean;
  /** The screen's heading; focus moves here when a user action brings this screen up. */
  headingRef?: Ref<HTMLHeadingElement>;
}

function displayHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return url;
  }
}

const neverChanges = () => () => {};

/** This page's host name, from its own location (none in the server's render). */
function usePageHostName(): string | null {
  return useSyncExternalStore(
    neverChanges,
    () => window.location.hostname,
    () => null,
  );
}

/**
 * ChatGPT's device page warns people off codes that a website gave them. This site is such a
 * website, so it says so before they see the warning, and what approving lets it do.
 */
function WebsiteNotice() {
  const hostName = usePageHostName();
  return (
    <p data-testid="device-code-notice" className="text-[13px] leading-5 text-muted-foreground">
      ChatGPT may warn you that a website gave you this code: that website is{" "}
      {hostName ? (
        <>
          <span className="font-medium text-foreground">{hostName}</span>
          , the site you are on
        </>
      ) : (
        "the site you are on"
      )}
      . Signing in lets it use the models on your ChatGPT plan for you; it never sees your password.
    </p>
  );
}

/** The pending login: the code, where to enter it, a QR code for phones, and a calm waiting state. */
export function DeviceCodePanel({ userCode, verificationUrl, secondsLeft, nextCheckInSeconds, pollWarning, onCancel, busy, headingRef }: DeviceCodePanelProps) {
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 ref={headingRef} tabIndex={-1} className="text-2xl font-semibold tracking-tight">
          Approve the sign-in
        </h1>
        <p className="mt-2 text-[15px] leading-6 text-muted-foreground">
          Open the ChatGPT page, sign in there if asked, and enter this code. This page continues by itself.
        </p>
      </div>

      <div className="rounded-xl border border-border bg-background px-4 py-4 text-center">
        <p id="user-code-label" className="text-xs font-medium uppercase tracking-[0.08em] text-muted-foreground">
          Your code
        </p>
        <p
          data-testid="user-code"
          aria-labelledby="user-code-label"
          className="mt-1.5 select-all font-mono text-[2rem] font-semibold leading-tight tracking-[0.12em] text-foreground sm:text-[2.25rem]"
        >
          {userCode}
        </p>
        <CopyButton
          text={userCode}
          label="Copy code"
          testId="copy-code-button"
          className={`${ghostButton} mt-2 h-8 text-[13px]`}
        />
      </div>

      <WebsiteNotice />

      <div className="flex items-center gap-4">
        <div className="flex min-w-0 flex-1 flex-col gap-2">
          <a
            data-testid="verification-link"
            href={verificationUrl}
            target="_blank"
            rel="noopener noreferrer"
            className={`${primaryButton} w-full`}
          >
            Open ChatGPT
            <ExternalLinkIcon className="size-4" />
            <span className="sr-only">(opens in a new tab)</span>
          </a>
          <p className="truncate text-center text-xs text-muted-foreground" title={verificationUrl}>
            {displayHost(verificationUrl)}
          </p>
        </div>
        <div className="hidden flex-col items-center gap-1 min-[400px]:flex">
          <QrCodeImage value={verificationUrl} label={`QR code linking to ${verificationUrl}`} size={112} />
          <p className="text-[11px] text-muted-foreground">Scan on phone</p>
        </div>
      </div>

      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2 border-t border-border pt-4">
        <div className="flex flex-col gap-0.5">
          <div data-testid="login-waiting" role="status" aria-live="polite" className="flex items-center gap-2.5 text-sm text-foreground">
            <WaitingIndicator />
            <span className="whitespace-nowrap">Waiting for approval…</span>
          </div>
          {/* Outside the live region: a number that changes every second is not worth announcing. */}
          {nextCheckInSeconds !== null && (
            <p data-testid="next-check" className="whitespace-nowrap pl-9 text-xs tabular-nums text-muted-foreground">
              {nextCheckInSeconds > 0 ? `Next check in ${nextCheckInSeconds} s` : "Checking now…"}
            </p>
          )}
        </div>
        {secondsLeft !== null && (
          <p className="flex items-center gap-1 whitespace-nowrap text-sm text-muted-foreground">
            <span>Expires in</span>
            <span data-testid="countdown" role="timer" aria-live="off" className="font-mono tabular-nums text-foreground">
              {formatCountdown(secondsLeft)}
            </span>
          </p>
        )}
      </div>

      {pollWarning && (
        <p role="status" className="rounded-lg bg-warning-soft px-3 py-2 text-[13px] text-warning-foreground">
          {pollWarning}
        </p>
      )}

      <button type="button" onClick={onCancel} disabled={busy} className={`${ghostButton} self-center`}>
        Cancel
      </button>
    </div>
  );
}

import type { ReactNode } from "react";
import { AlertIcon } from "./icons";

interface ErrorAlertProps {
  /** `data-testid` of the alert. */
  testId: string;
  /** The service's error code, kept on the element as `data-error-code`. */
  code: string;
  title: string;
  message: string;
  /** The way forward: buttons such as "Try again" or "Sign in again". */
  children?: ReactNode;
}

/** A failure in words: icon, title, message and what the person can do next. */
export function ErrorAlert({ testId, code, title, message, children }: ErrorAlertProps) {
  return (
    <div
      role="alert"
      data-testid={testId}
      data-error-code={code}
      className="flex gap-3 rounded-xl border border-destructive/25 bg-destructive-soft px-4 py-3 text-sm"
    >
      <AlertIcon className="mt-0.5 size-[18px] shrink-0 text-destructive" />
      <div className="min-w-0 flex-1">
        <p className="font-semibold text-foreground">{title}</p>
        <p className="mt-0.5 leading-6 text-foreground/85">{message}</p>
        <div className="mt-2.5 flex flex-wrap gap-2 empty:hidden">{children}</div>
      </div>
    </div>
  );
}

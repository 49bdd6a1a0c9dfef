import type { Ref } from "react";
import { primaryButton } from "../ui/button-styles";
import { AlertIcon, ClockIcon, XIcon } from "../ui/icons";

type LoginEndKind = "expired" | "denied" | "error";

interface LoginEndStateProps {
  kind: LoginEndKind;
  message: string;
  /** The service's error code, kept on the region for tests and support. */
  code?: string;
  onNewCode: () => void;
  busy: boolean;
  /** The screen's heading; focus moves here when a user action brings this screen up. */
  headingRef?: Ref<HTMLHeadingElement>;
}

const CONTENT: Record<LoginEndKind, { title: string; testId: string; button: string; icon: React.ReactNode; tone: string }> = {
  expired: {
    title: "This code expired",
    testId: "login-expired",
    button: "Get a new code",
    icon: <ClockIcon className="size-5" />,
    tone: "bg-muted text-muted-foreground",
  },
  denied: {
    title: "Sign-in was declined",
    testId: "login-denied",
    button: "Start again",
    icon: <XIcon className="size-5" />,
    tone: "bg-muted text-muted-foreground",
  },
  error: {
    title: "Sign-in didn't work",
    testId: "login-error",
    button: "Try again",
    icon: <AlertIcon className="size-5" />,
    tone: "bg-destructive-soft text-destructive",
  },
};

/** Where a login ends without success: expired code, declined on the ChatGPT page, or a failure. */
export function LoginEndState({ kind, message, code, onNewCode, busy, headingRef }: LoginEndStateProps) {
  const content = CONTENT[kind];
  return (
    <section data-testid={content.testId} data-error-code={code} aria-labelledby="login-end-title" className="flex flex-col gap-5">
      <span className={`inline-flex size-10 items-center justify-center rounded-full ${content.tone}`}>{content.icon}</span>
      <div role={kind === "error" ? "alert" : "status"}>
        <h1 id="login-end-title" ref={headingRef} tabIndex={-1} className="text-2xl font-semibold tracking-tight">
          {content.title}
        </h1>
        <p className="mt-2 text-[15px] leading-6 text-muted-foreground">{message}</p>
      </div>
      <button type="button" data-testid="new-code-button" className={`${primaryButton} w-full`} onClick={onNewCode} disabled={busy} aria-busy={busy}>
        {busy ? "Getting a code…" : content.button}
      </button>
    </section>
  );
}

import { DEFAULT_BASE_PATH } from "@/lib/shared/base-path";
import type { ChatErrorInfo } from "@/lib/client/chat-error";
import { formatDuration, formatResetTime } from "@/lib/client/format-time";
import { MANAGE_USAGE_URL, siwcStartUrl } from "@/lib/client/siwc";
import { primarySmallButton, secondaryButton } from "../ui/button-styles";
import { ErrorAlert } from "../ui/error-alert";

interface ChatErrorAlertProps {
  error: ChatErrorInfo;
  onSignIn: () => void;
  /** Shown below the message: the retry button and similar actions. */
  children?: React.ReactNode;
}

function usageLimitText(error: ChatErrorInfo): string {
  const limit = error.usageLimit;
  const plan = limit?.planType ? ` on the ${limit.planType} plan` : "";
  if (limit?.resetsAt !== undefined) {
    const secondsLeft = (limit.resetsAt - Date.now()) / 1000;
    return `You've reached your usage limit${plan}. It resets at ${formatResetTime(limit.resetsAt)} (in ${formatDuration(secondsLeft)}).`;
  }
  if (limit?.resetsInSeconds !== undefined) {
    return `You've reached your usage limit${plan}. It resets in ${formatDuration(limit.resetsInSeconds)}.`;
  }
  return `You've reached your usage limit${plan}. Try again later.`;
}

const TITLES: Record<string, string> = {
  not_authenticated: "Signed out",
  rate_limited: "Slow down a little",
  usage_limit: "Usage limit reached",
  model_not_allowed: "Model not available",
  client_version_outdated: "Model not available yet",
  model_not_supported: "Model no longer offered",
  images_not_supported: "This model reads text only",
  refused: "Request declined",
  sent_while_signed_out: "Not sent",
  network_error: "Connection problem",
  responses_request_failed: "The model service failed",
  stream_failed: "Answer interrupted",
  no_output: "No answer",
  responses_request_too_large: "Conversation too long",
  plan_usage_limit_reached: "ChatGPT plan limit reached",
  plan_usage_not_granted: "Plan usage isn't enabled",
  plan_not_eligible: "Plan not eligible",
  plan_usage_unavailable: "Plan usage unavailable",
  plan_route_not_supported: "Not supported with plan usage",
  plan_authorization_invalid: "Plan access not accepted",
  plan_access_restricted: "Plan usage refused",
  not_available_with_siwc: "Not available with this sign-in",
  unsupported_field: "Not supported with plan usage",
};

/** A failed chat call, in words; the service's code stays on the element (data-error-code). */
export function ChatErrorAlert({ error, onSignIn, children }: ChatErrorAlertProps) {
  const message = error.code === "usage_limit" ? usageLimitText(error) : error.message;
  return (
    <ErrorAlert testId="chat-error" code={error.code} title={TITLES[error.code] ?? "Something went wrong"} message={message}>
      {/* The limit's way forward is ChatGPT's usage settings, first; there is no retry loop and no other way of paying. */}
      {error.code === "plan_usage_limit_reached" && (
        <a href={MANAGE_USAGE_URL} target="_blank" rel="noopener noreferrer" data-testid="manage-usage-button" className={primarySmallButton}>
          Manage usage
        </a>
      )}
      {error.code === "plan_usage_not_granted" && (
        <a href={siwcStartUrl(DEFAULT_BASE_PATH, { consent: true })} data-testid="enable-plan-usage-link" className={`${secondaryButton} h-8`}>
          Enable plan usage
        </a>
      )}
      {error.code === "not_authenticated" && (
        <button type="button" onClick={onSignIn} className={`${secondaryButton} h-8`}>
          Sign in again
        </button>
      )}
      {children}
    </ErrorAlert>
  );
}

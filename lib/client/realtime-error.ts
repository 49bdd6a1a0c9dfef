import { apiErrorCode, type ApiErrorCode } from "@/lib/error-codes";
import { parseJsonObject } from "./provider-proxy-error";

/** The service's error code, one of the browser's own below, or `http_<status>` for a reply without one. */
type RealtimeErrorCode =
  | ApiErrorCode
  | "microphone_denied"
  | "microphone_unavailable"
  | "unsupported_browser"
  | "connection_failed"
  | "connection_lost"
  | "aborted"
  | `http_${number}`;

/**
 * Why a voice call could not start or stopped. `code` is the service's error code where the
 * service answered (`not_authenticated`, `realtime_transport_not_allowed`,
 * `realtime_mode_not_allowed`, `realtime_model_not_allowed`, `realtime_request_failed`,
 * `realtime_request_too_large`, `invalid_realtime_request`, `rate_limited`, `origin_not_allowed`, and
 * for agent voice `realtime_busy`, `realtime_start_superseded`, ...) and one of these for failures in the
 * browser itself:
 * - `microphone_denied`: the person or the browser refused the microphone.
 * - `microphone_unavailable`: there is no microphone, or it is busy.
 * - `unsupported_browser`: no WebRTC or no microphone API (also: not a secure context).
 * - `network_error`: the request to our route never got an answer.
 * - `connection_failed`: the media connection never came up.
 * - `connection_lost`: the media connection dropped during the call.
 * - `aborted`: the call was cancelled before it connected.
 */
export class RealtimeError extends Error {
  override readonly name = "RealtimeError";
  readonly code: RealtimeErrorCode;
  /** HTTP status of our route's answer, when there was one. */
  readonly status?: number;
  /** The parsed JSON error body of our route, when there was one. */
  readonly body?: Record<string, unknown>;

  constructor(options: { code: RealtimeErrorCode; message: string; status?: number; body?: Record<string, unknown>; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.body = options.body;
  }

  get isSignedOut(): boolean {
    return this.code === "not_authenticated";
  }
}

export function isRealtimeError(error: unknown): error is RealtimeError {
  return error instanceof RealtimeError;
}

/** Builds a RealtimeError from a non-2xx answer of `POST {basePath}/realtime` (consumes the body). */
export async function realtimeErrorFromResponse(response: Response): Promise<RealtimeError> {
  const text = await response.text().catch(() => "");
  const body = parseJsonObject(text);
  const code = apiErrorCode(body?.error) ?? (response.status === 401 ? "not_authenticated" : `http_${response.status}`);
  const serverMessage = typeof body?.message === "string" ? body.message : typeof body?.detail === "string" ? body.detail : undefined;
  return new RealtimeError({
    code,
    status: response.status,
    body,
    message: serverMessage ?? `The voice service answered ${response.status} (${code}).`,
  });
}

/** Turns what getUserMedia threw into a RealtimeError (the DOMException names are the spec's). */
export function microphoneError(error: unknown): RealtimeError {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || name === "SecurityError") {
    return new RealtimeError({ code: "microphone_denied", message: "Microphone access was refused.", cause: error });
  }
  if (name === "NotFoundError" || name === "NotReadableError" || name === "OverconstrainedError" || name === "AbortError") {
    return new RealtimeError({ code: "microphone_unavailable", message: "No usable microphone was found.", cause: error });
  }
  return new RealtimeError({ code: "microphone_unavailable", message: "The microphone could not be opened.", cause: error });
}

/** A voice failure in words for people: a title, what happened, and what to do about it. */
export interface RealtimeErrorInfo {
  code: RealtimeErrorCode;
  title: string;
  message: string;
  /** Whether trying again can help without changing anything (a retry button makes sense). */
  retryable: boolean;
}

function field(body: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = body?.[name];
  return typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined;
}

/** Words for whatever connectRealtime threw or reported (never includes tokens or transcript text). */
export function describeRealtimeError(error: unknown): RealtimeErrorInfo {
  if (!isRealtimeError(error)) {
    return {
      code: "connection_failed",
      title: "Voice failed",
      message: "The voice call stopped unexpectedly. Try again.",
      retryable: true,
    };
  }
  const body = error.body;
  switch (error.code) {
    case "microphone_denied":
      return {
        code: error.code,
        title: "Microphone blocked",
        message:
          "This page is not allowed to use your microphone. Allow it with the site settings button next to the address bar (or your browser's privacy settings), then try again.",
        retryable: true,
      };
    case "microphone_unavailable":
      return {
        code: error.code,
        title: "No microphone",
        message: "No microphone could be opened. Plug one in or close other apps that use it, then try again.",
        retryable: true,
      };
    case "unsupported_browser":
      return {
        code: error.code,
        title: "Voice is not available here",
        message:
          "This browser cannot make voice calls from this page. Use a current Chrome, Edge, Firefox or Safari, and open the app over https (or on localhost).",
        retryable: false,
      };
    case "not_authenticated":
      return { code: error.code, title: "Signed out", message: "You're signed out. Sign in again to use voice.", retryable: false };
    case "realtime_transport_not_allowed": {
      const transport = field(body, "transport");
      return {
        code: error.code,
        title: "Voice connection type not allowed",
        message: `This server does not allow the ${transport ? `“${transport}” ` : ""}voice connection type. Pick another one in the options, or ask the site's owner to allow it.`,
        retryable: false,
      };
    }
    case "realtime_mode_not_allowed": {
      const voiceMode = field(body, "voiceMode");
      return {
        code: error.code,
        title: "Voice mode not allowed",
        message: `This server does not allow the ${voiceMode ? `“${voiceMode}” ` : ""}voice mode. Pick another one, or ask the site's owner to allow it.`,
        retryable: false,
      };
    }
    case "realtime_request_failed": {
      const status = field(body, "status") ?? (error.status === undefined ? undefined : String(error.status));
      return {
        code: error.code,
        title: "The voice service failed",
        message: `ChatGPT's voice service did not accept the call${status ? ` (status ${status})` : ""}. Try again in a moment.`,
        retryable: true,
      };
    }
    case "realtime_model_not_allowed": {
      const model = field(body, "model");
      return {
        code: error.code,
        title: "Model not allowed",
        message: `This server does not allow the ${model ? `“${model}” ` : ""}model for voice calls. Pick another one, or ask the site's owner to allow it.`,
        retryable: false,
      };
    }
    case "realtime_busy": {
      const seconds = field(body, "retryAfterSeconds");
      const wait = seconds ? ` Try again in about ${seconds} seconds.` : " Try again in a little while.";
      return {
        code: error.code,
        title: "Agent mode is busy",
        message:
          error.status === 429
            ? `Your ChatGPT account already has as many agent voice calls as it may have at once. End one (in another tab or on another device), or wait.${wait}`
            : `Agent mode is busy on this server right now.${wait} Voice without agent mode still works.`,
        retryable: true,
      };
    }
    case "rate_limited": {
      const seconds = field(body, "retryAfterSeconds");
      return {
        code: error.code,
        title: "Too many calls",
        message: `Voice calls were started too quickly. Wait ${seconds ? `${seconds} seconds` : "a minute"}, then try again.`,
        retryable: true,
      };
    }
    case "realtime_start_superseded":
      return {
        code: error.code,
        title: "A newer call took over",
        message: "You started another agent voice call (here or in another tab), and it replaced this one.",
        retryable: true,
      };
    case "realtime_request_too_large":
      return { code: error.code, title: "Call request too large", message: "The call request was larger than this server accepts.", retryable: false };
    case "invalid_realtime_request":
      return {
        code: error.code,
        title: "Call request refused",
        message: `The server refused the call request${field(body, "message") ? `: ${field(body, "message")}` : "."}`,
        retryable: false,
      };
    case "origin_not_allowed":
      return { code: error.code, title: "Request refused", message: "The server refused a request from this page's address (origin not allowed).", retryable: false };
    case "agent_sandbox_unavailable":
      return {
        code: error.code,
        title: "Agent mode is unavailable",
        message:
          "This server cannot start the sandbox that agent mode runs in, so agent mode stays off. Switch agent mode off to talk without it; the server's log tells its administrator how to fix it.",
        retryable: false,
      };
    case "network_error":
      return { code: error.code, title: "Connection problem", message: "Couldn't reach the server. Check your connection and try again.", retryable: true };
    case "connection_failed":
      return {
        code: error.code,
        title: "Couldn't connect the call",
        message: "The audio connection to the voice service never came up. Check your network (a firewall or VPN can block calls) and try again.",
        retryable: true,
      };
    case "connection_lost":
      return { code: error.code, title: "Call dropped", message: "The network connection was lost during the call. Try again.", retryable: true };
    default:
      if (error.status === 404) {
        return { code: error.code, title: "Voice is turned off", message: "Voice calls are not enabled on this server.", retryable: false };
      }
      return {
        code: error.code,
        title: "Voice failed",
        message: `${error.message}`,
        retryable: error.status === undefined || error.status >= 500,
      };
  }
}

import "server-only";
/**
 * `--live`: the deploy itself, called with a signed-in session's cookie as a browser would (nothing
 * is signed in): the session, the account's models, one tiny streamed reply. What the backend
 * answered is shown as the app passed it on, bounded and without tokens.
 */
import { upstreamSnippet } from "@/lib/upstream/redact";
import { readReplyStream } from "./reply-stream";
import type { CheckResult } from "./types";

export interface LiveOptions {
  /** The deploy's origin, e.g. https://chat.example.com (its LWC_BASE_PATH and LWC_API_BASE_PATH are added). */
  url: string;
  /** `lwc_session=<value>` (or `__Host-lwc_session=…`), or the bare value. */
  cookie: string;
  /** The reply's model. Default: the first model the account lists. */
  model?: string;
}

const LIVE_PROMPT = "Reply with the single word: ok";
const LIST_CHARS = 160;

const row = (check: string, status: CheckResult["status"], detail: string): CheckResult => ({ check: `live: ${check}`, status, detail });
const skipped = (check: string, why: string) => row(check, "skip", why);
/** The app's reply body (its words and the backend's), bounded and without tokens. */
const words = (status: number, body: string) => `HTTP ${status}: ${upstreamSnippet(body) ?? "(empty body)"}`;

const bounded = (text: string) => (text.length > LIST_CHARS ? `${text.slice(0, LIST_CHARS)}…` : text);

/** `<slug> (<the app's sentence>)` of every model the app marks `unavailable`. */
function gatedModels(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: { slug?: unknown; unavailable?: { message?: unknown } }) =>
    typeof detail?.slug === "string" && detail.unavailable
      ? [`${detail.slug}${typeof detail.unavailable.message === "string" ? ` (${detail.unavailable.message})` : ""}`]
      : [],
  );
}

/** `apiPath`: where the deploy's API answers below its origin, `{LWC_BASE_PATH}{LWC_API_BASE_PATH}`. */
export async function liveChecks(options: LiveOptions, apiPath: string, timeoutMs: number): Promise<CheckResult[]> {
  const api = `${options.url.replace(/\/+$/, "")}${apiPath}`;
  const cookie = options.cookie.includes("=") ? options.cookie.trim() : `lwc_session=${options.cookie.trim()}`;
  const call = async (path: string, init: RequestInit = {}, ms = timeoutMs) =>
    fetch(`${api}${path}`, { ...init, headers: { ...init.headers, cookie }, redirect: "manual", signal: AbortSignal.timeout(ms) });
  const unreachable = (error: unknown) =>
    error instanceof DOMException && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : `${new URL(api).origin} could not be reached`;

  // The session: signed in?
  let session: Response;
  try {
    session = await call("/session");
  } catch (error) {
    return [row("session", "fail", unreachable(error)), skipped("models", "no session"), skipped("reply", "no session")];
  }
  const sessionBody = await session.text();
  const state = (() => {
    try {
      return JSON.parse(sessionBody) as { status?: unknown; user?: { plan?: unknown } };
    } catch {
      return undefined;
    }
  })();
  if (!session.ok || state?.status !== "authenticated") {
    return [
      row("session", "fail", `${words(session.status, sessionBody)} (sign in on the deploy and copy its cookie)`),
      skipped("models", "no signed-in session"),
      skipped("reply", "no signed-in session"),
    ];
  }
  const results = [row("session", "ok", `authenticated${typeof state.user?.plan === "string" ? ` (plan ${state.user.plan})` : ""}`)];

  // The account's models.
  let models: string[] = [];
  try {
    const listed = await call("/models");
    const body = await listed.text();
    const { models: slugs, modelDetails } = JSON.parse(body) as { models?: unknown; modelDetails?: unknown };
    if (listed.ok && Array.isArray(slugs)) {
      models = slugs.filter((slug): slug is string => typeof slug === "string");
      const list = bounded(models.join(", "));
      // Listed by the account but gated above the client version this server sends: a new model, usually.
      const gated = gatedModels(modelDetails);
      const status = models.length === 0 ? "fail" : gated.length > 0 ? "warn" : "ok";
      results.push(row("models", status, `${models.length} models: ${list}${gated.length > 0 ? `; not usable here: ${bounded(gated.join("; "))}` : ""}`));
    } else {
      results.push(row("models", "fail", words(listed.status, body)));
    }
  } catch (error) {
    results.push(row("models", "fail", error instanceof SyntaxError ? "the reply was not JSON" : unreachable(error)));
  }

  // One tiny streamed reply.
  const model = options.model ?? models[0];
  if (!model) {
    results.push(skipped("reply", "no model to ask (the list failed): name one with --model"));
    return results;
  }
  results.push(row("reply", ...(await tinyReply(call, model, unreachable))));
  return results;
}

async function tinyReply(
  call: (path: string, init?: RequestInit, ms?: number) => Promise<Response>,
  model: string,
  unreachable: (error: unknown) => string,
): Promise<[CheckResult["status"], string]> {
  const body = { model, stream: true, input: [{ role: "user", content: [{ type: "input_text", text: LIVE_PROMPT }] }] };
  let reply: Response;
  try {
    reply = await call("/responses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, 60_000);
  } catch (error) {
    return ["fail", `${model}: ${unreachable(error)}`];
  }
  if (!reply.ok || !reply.body) return ["fail", `${model}: ${words(reply.status, await reply.text())}`];
  const stream = await readReplyStream(reply.body);
  // The first and the last event types tell how far it got.
  const types = stream.types;
  const events = types.length <= 4 ? types.join(", ") : [...types.slice(0, 2), "…", ...types.slice(-2)].join(", ");
  if (stream.failure !== undefined) {
    return ["fail", `${model}: the stream reported ${upstreamSnippet(stream.failure, { inputs: [LIVE_PROMPT] }) ?? "a failure"} (events: ${events})`];
  }
  if (!stream.types.includes("response.completed")) return ["fail", `${model}: the stream ended without response.completed (events: ${events})`];
  const text = upstreamSnippet(stream.text, { maxChars: 60 }) ?? "";
  return ["ok", `${model} answered "${text}" (events: ${events})`];
}

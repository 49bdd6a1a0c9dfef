import "server-only";
/**
 * The server's side of a session relay (docs/agent-voice.md#the-session-relay): a message channel
 * to one codex that any server instance can open, from any seq, while the relay runs.
 *
 * - Lines codex writes reach `onLine` in order, each once, with their seq. A dropped connection,
 *   or one silent past the heartbeat timeout, is reopened from the last seq delivered, for up to
 *   `reconnectForMs`; the relay replays what was missed.
 * - `send(line, id)` writes one line to codex's stdin. Sends go one at a time, in order, and each
 *   is retried (with the same id, so the relay writes it once) until the relay acknowledges it.
 * - `detach()` stops following (codex goes on); `close()` ends codex and the relay.
 *
 * Without `onLine` the channel follows nothing: it only sends (a confirmation or a hang-up served
 * by an instance that does not stream the session's events).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { connectRelay, readJsonAnswer, type RelayAddress } from "./relay-http";

export interface RelayLine {
  seq: number;
  line: string;
}

/** Why a channel ended. */
type RelayEnd =
  | { reason: "detached" }
  /** codex ended; `why` is the relay's word for it: exited, closed, abandoned, line_too_long, signal. */
  | { reason: "exited"; why: string; code: number | null; signal: string | null }
  /** The lines after the channel's seq are no longer buffered (it was away too long). */
  | { reason: "lines_evicted"; firstSeq: number }
  /** Another relay answers at the address (a new epoch): the codex this channel followed is gone. */
  | { reason: "relay_restarted" }
  /** The relay refused the channel (a wrong token: 401), or gave a protocol error. */
  | { reason: "refused"; status: number; error: string }
  /** No answer for `reconnectForMs`. */
  | { reason: "unreachable"; detail: string };

export class RelayError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RelayError";
  }
}

export interface RelayChannelOptions {
  address: RelayAddress;
  token: string;
  /** Follow from after this seq (0: from the start). */
  after?: number;
  /** The relay's epoch from an earlier attach: any other one ends the channel (`relay_restarted`). */
  epoch?: string;
  /** Each line codex writes after `after`; without it the channel only sends. */
  onLine?(line: RelayLine): void;
  /** A stream silent this long (no line, no heartbeat) is reopened. Default 40 s (the relay beats every 15 s). */
  heartbeatTimeoutMs?: number;
  /** An input or close not answered this long is sent again. Default 20 s (a close takes up to about 4 s). */
  requestTimeoutMs?: number;
  /** How long to keep trying a relay that does not answer. Default 30 s. */
  reconnectForMs?: number;
}

export interface RelayChannel {
  /** The relay's epoch, once an attach has said it. */
  epoch(): string | undefined;
  /** The seq of the last line handed to onLine: where another attach would go on from. */
  lastSeq(): number;
  send(line: string, id?: string): Promise<void>;
  readonly ended: Promise<RelayEnd>;
  detach(): void;
  /** Ends codex (the relay then ends itself) and resolves with how the channel ended. */
  close(): Promise<RelayEnd>;
}

const DEFAULT_HEARTBEAT_TIMEOUT_MS = 40_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;
const DEFAULT_RECONNECT_FOR_MS = 30_000;
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 2_000;
/** An event line: a codex line of at most 1 MiB, escaped as a JSON string, plus its envelope. */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;

type Attempt = { kind: "retry"; progressed: boolean; detail: string } | { kind: "end"; end: RelayEnd };

type RelayConnection = ReturnType<typeof connectRelay>;

/** Statuses worth retrying: the relay (or the route in front of it) is not there yet or any more. */
const isTransient = (status: number) => status === 429 || status >= 500;

/** How codex ended, from the relay's `exit` event or its answer to `/close`. */
function exitedEnd(fields: Record<string, unknown>): RelayEnd {
  return {
    reason: "exited",
    why: String(fields.reason),
    code: typeof fields.code === "number" ? fields.code : null,
    signal: typeof fields.signal === "string" ? fields.signal : null,
  };
}

interface StreamSettings {
  heartbeatTimeoutMs: number;
  /** One event; an end when it ends the channel. */
  onEvent(event: Record<string, unknown>): RelayEnd | undefined;
  /** Hands over what ends this read when the channel ends. */
  onInterrupt(settle: () => void): void;
}

/** Reads one event stream to its end. */
function readEventStream(response: IncomingMessage, abort: () => void, settings: StreamSettings): Promise<Attempt> {
  const { heartbeatTimeoutMs } = settings;
  return new Promise((resolve) => {
    let progressed = false;
    let partial = "";
    let settled = false;
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      abort();
      resolve(attempt);
    };
    let watchdog = setTimeout(() => settle({ kind: "retry", progressed, detail: "no heartbeat" }), heartbeatTimeoutMs);
    settings.onInterrupt(() => settle({ kind: "retry", progressed, detail: "interrupted" }));
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => settle({ kind: "retry", progressed, detail: "no heartbeat" }), heartbeatTimeoutMs);
      partial += chunk;
      let newline: number;
      while (!settled && (newline = partial.indexOf("\n")) !== -1) {
        const text = partial.slice(0, newline);
        partial = partial.slice(newline + 1);
        let event: Record<string, unknown>;
        try {
          event = JSON.parse(text) as Record<string, unknown>;
        } catch {
          return settle({ kind: "end", end: { reason: "refused", status: 200, error: "bad_event" } });
        }
        progressed = true;
        const end = settings.onEvent(event);
        if (end) return settle({ kind: "end", end });
      }
      if (partial.length > MAX_EVENT_CHARS) settle({ kind: "end", end: { reason: "refused", status: 200, error: "event_too_long" } });
    });
    response.once("end", () => settle({ kind: "retry", progressed, detail: "stream ended" }));
    response.once("error", (error) => settle({ kind: "retry", progressed, detail: error.message }));
    response.once("close", () => settle({ kind: "retry", progressed, detail: "stream closed" }));
  });
}

/** A POST the relay answers with JSON, retried while it is unreachable; throws RelayError otherwise. */
async function postToRelay(
  connection: RelayConnection,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  settings: { requestTimeoutMs: number; reconnectForMs: number; ended(): RelayEnd | undefined },
): Promise<Record<string, unknown>> {
  const startedAt = Date.now();
  let wait = FIRST_RETRY_MS;
  for (;;) {
    const ended = settings.ended();
    if (ended) throw new RelayError("channel_ended", `the channel has ended (${ended.reason})`);
    let detail: string;
    const { response, abort } = connection.request("POST", path, { headers, ...(body === undefined ? {} : { body }) });
    const timer = setTimeout(abort, settings.requestTimeoutMs);
    try {
      const answer = await response;
      const status = answer.statusCode ?? 0;
      const json = (await readJsonAnswer(answer)) ?? {};
      if (status === 200) return json;
      const code = typeof json.error === "string" ? json.error : `status_${status}`;
      if (!isTransient(status)) throw new RelayError(code, `the session relay answered ${status} ${code}`);
      detail = `status ${status}`;
    } catch (error) {
      if (error instanceof RelayError) throw error;
      detail = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() - startedAt > settings.reconnectForMs) throw new RelayError("unreachable", `the session relay is unreachable (${detail})`);
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, MAX_RETRY_MS);
  }
}

export function openRelayChannel(options: RelayChannelOptions): RelayChannel {
  const connection = connectRelay(options.address, options.token);
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
  const reconnectForMs = options.reconnectForMs ?? DEFAULT_RECONNECT_FOR_MS;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  let epoch = options.epoch;
  let lastSeq = options.after ?? 0;
  let ended: RelayEnd | undefined;
  let resolveEnded!: (end: RelayEnd) => void;
  const endedPromise = new Promise<RelayEnd>((resolve) => (resolveEnded = resolve));
  /** Aborts the stream being read, or cuts a wait short, when the channel ends. */
  let interrupt: (() => void) | undefined;
  let sending: Promise<unknown> = Promise.resolve();

  function finish(end: RelayEnd): void {
    if (ended) return;
    ended = end;
    interrupt?.();
    connection.close();
    resolveEnded(end);
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      interrupt = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** The end an error answer means (410, 400 and the rest), telling a restarted relay apart. */
  async function refusal(response: IncomingMessage): Promise<RelayEnd> {
    const body = (await readJsonAnswer(response)) ?? {};
    if (typeof body.epoch === "string" && epoch !== undefined && body.epoch !== epoch) return { reason: "relay_restarted" };
    if (response.statusCode === 410 && typeof body.firstSeq === "number") return { reason: "lines_evicted", firstSeq: body.firstSeq };
    return { reason: "refused", status: response.statusCode ?? 0, error: typeof body.error === "string" ? body.error : "unknown" };
  }

  /** One event; an end when it ends the channel. */
  function handleEvent(event: Record<string, unknown>): RelayEnd | undefined {
    if (event.type === "hello") {
      if (epoch !== undefined && event.epoch !== epoch) return { reason: "relay_restarted" };
      epoch = String(event.epoch);
    } else if (event.type === "line" && typeof event.seq === "number" && typeof event.line === "string") {
      if (event.seq <= lastSeq) return undefined;
      // The relay never skips on a stream it serves: a gap is a protocol error, never papered over.
      if (event.seq !== lastSeq + 1) return { reason: "lines_evicted", firstSeq: event.seq };
      lastSeq = event.seq;
      options.onLine?.({ seq: event.seq, line: event.line });
    } else if (event.type === "exit") {
      return exitedEnd(event);
    }
    return undefined;
  }

  async function attachOnce(): Promise<Attempt> {
    const { response, abort } = connection.request("GET", `/events?after=${lastSeq}`);
    interrupt = abort;
    let answer: IncomingMessage;
    try {
      answer = await response;
    } catch (error) {
      return { kind: "retry", progressed: false, detail: error instanceof Error ? error.message : String(error) };
    }
    const status = answer.statusCode ?? 0;
    if (status === 200) {
      return readEventStream(answer, abort, { heartbeatTimeoutMs, onEvent: handleEvent, onInterrupt: (settle) => (interrupt = settle) });
    }
    if (isTransient(status)) {
      answer.resume();
      return { kind: "retry", progressed: false, detail: `status ${status}` };
    }
    return { kind: "end", end: await refusal(answer) };
  }

  async function follow(): Promise<void> {
    let failingSince: number | undefined;
    let wait = FIRST_RETRY_MS;
    while (!ended) {
      const attempt = await attachOnce();
      if (ended) return;
      if (attempt.kind === "end") return finish(attempt.end);
      if (attempt.progressed) {
        failingSince = undefined;
        wait = FIRST_RETRY_MS;
      }
      failingSince ??= Date.now();
      if (Date.now() - failingSince > reconnectForMs) return finish({ reason: "unreachable", detail: attempt.detail });
      await pause(wait);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }

  const post = (path: string, headers: Record<string, string>, body?: string) =>
    postToRelay(connection, path, headers, body, { requestTimeoutMs, reconnectForMs, ended: () => ended });

  if (options.onLine) void follow();

  return {
    epoch: () => epoch,
    lastSeq: () => lastSeq,
    send(line, id = randomUUID()) {
      if (ended) return Promise.reject(new RelayError("channel_ended", `the channel has ended (${ended.reason})`));
      const headers = { "content-type": "application/json", "idempotency-key": id };
      const sent = sending.then(() => post("/input", headers, line));
      sending = sent.catch(() => undefined);
      return sent.then(() => undefined);
    },
    ended: endedPromise,
    detach: () => finish({ reason: "detached" }),
    async close() {
      if (ended) return endedPromise;
      // The stream's exit event usually ends the channel first; the answer ends one whose stream
      // is reconnecting, or a channel that only sends.
      const closing = post("/close", {}).then(
        (closed) => finish(exitedEnd(closed)),
        (error: unknown) => finish({ reason: "unreachable", detail: error instanceof Error ? error.message : String(error) }),
      );
      await Promise.race([closing, endedPromise]);
      return endedPromise;
    },
  };
}

/**
 * The lines buffered after `after`, without following (hello first): for one look at what codex
 * said, or waiting until it has said something, with no channel kept open.
 */
export async function readRelayLines(address: RelayAddress, token: string, after: number): Promise<RelayLine[]> {
  const connection = connectRelay(address, token);
  try {
    const response = await connection.request("GET", `/events?after=${after}&follow=false`).response;
    if (response.statusCode !== 200) {
      const body = (await readJsonAnswer(response)) ?? {};
      throw new RelayError(String(body.error ?? `status_${response.statusCode}`), `the session relay answered ${response.statusCode}`);
    }
    let text = "";
    response.setEncoding("utf8");
    for await (const chunk of response) text += chunk as string;
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === "line")
      .map((event) => ({ seq: event.seq as number, line: event.line as string }));
  } finally {
    connection.close();
  }
}

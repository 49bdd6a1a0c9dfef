import "server-only";
import { API_ERRORS, type ApiErrorCode } from "@/lib/error-codes";
import { jsonResponse } from "./json";

type Entry<C extends ApiErrorCode> = (typeof API_ERRORS)[C];

/**
 * The statuses a place that refuses with code `C` may pick: any for a provider's failure passed on
 * (`upstream`), the code's own and its `alsoStatus` for a code that has some, none otherwise (a
 * type error: the code's status is the only one).
 */
type StatusChoice<C extends ApiErrorCode> =
  Entry<C> extends { upstream: true }
    ? number
    : Entry<C> extends { alsoStatus: readonly (infer S)[] }
      ? S | Entry<C>["status"]
      : never;

interface ApiErrorInit<C extends ApiErrorCode> {
  status?: StatusChoice<C>;
  headers?: HeadersInit;
}

/**
 * The reply `{error: code, ...fields}` with the code's status from `API_ERRORS` (lib/error-codes.ts),
 * and its default `message` last when `fields` give none.
 */
export function errorResponse<C extends ApiErrorCode>(code: C, fields: Record<string, unknown> = {}, init: ApiErrorInit<C> = {}): Response {
  const entry: { status: number; message?: string } = API_ERRORS[code];
  const body: Record<string, unknown> = { error: code, ...fields };
  if (body.message === undefined && entry.message !== undefined) body.message = entry.message;
  return jsonResponse(body, { status: (init.status as number | undefined) ?? entry.status, headers: init.headers });
}

/**
 * A refusal a guard throws and the handler answers (as Hono's HTTPException): `throw new
 * ApiError("model_not_allowed", { model })` becomes `403 {"error":"model_not_allowed","model":…}`.
 * The status comes from the code (lib/error-codes.ts); `init.status` picks another only where the
 * code allows one.
 */
export class ApiError<C extends ApiErrorCode = ApiErrorCode> extends Error {
  readonly code: C;
  readonly fields: Readonly<Record<string, unknown>>;
  private readonly init: ApiErrorInit<C>;

  constructor(code: C, fields: Record<string, unknown> = {}, init: ApiErrorInit<C> = {}) {
    const entry: { status: number; message?: string } = API_ERRORS[code];
    super(typeof fields.message === "string" ? fields.message : (entry.message ?? code));
    this.name = "ApiError";
    this.code = code;
    this.fields = fields;
    this.init = init;
  }

  get status(): number {
    return (this.init.status as number | undefined) ?? API_ERRORS[this.code].status;
  }

  /** The reply: `{error: code, ...fields}` (and the default message) with the code's status. */
  toResponse(): Response {
    return errorResponse(this.code, this.fields, this.init);
  }
}

/** Whole seconds until a rate-limit window resets (`reset`, epoch ms), at least 1. */
export function retryAfterSeconds(reset: number, now: number): number {
  return Math.max(1, Math.ceil((reset - now) / 1000));
}

/** 429 `{error: "rate_limited", ...fields, retryAfterSeconds}` with the same wait in `retry-after`, to throw. */
export function rateLimited(reset: number, now: number, fields: Record<string, unknown> = {}): ApiError<"rate_limited"> {
  const seconds = retryAfterSeconds(reset, now);
  return new ApiError("rate_limited", { ...fields, retryAfterSeconds: seconds }, { headers: { "retry-after": String(seconds) } });
}

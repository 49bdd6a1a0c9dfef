import "server-only";
import { normalizeOrigin, requestOrigin } from "./request-origin";

export type OriginVerdict =
  /** No Origin header, or the request's own origin: nothing to add. */
  | { kind: "same-origin-or-absent" }
  /** One of allowedOrigins: passes, and the reply gets credentialed CORS headers. */
  | { kind: "allowed-cross-origin"; origin: string }
  | { kind: "rejected"; origin: string };

/**
 * The contract's CSRF rule (docs/api.md): no Origin passes; the same origin or one in allowedOrigins passes;
 * anything else (including the literal "null" of sandboxed frames and file: pages) is rejected.
 */
export function checkOrigin(request: Request, allowedOrigins: ReadonlySet<string>): OriginVerdict {
  const header = request.headers.get("origin");
  if (header === null) return { kind: "same-origin-or-absent" };
  const origin = normalizeOrigin(header.trim());
  if (origin !== null && origin === requestOrigin(request)) return { kind: "same-origin-or-absent" };
  if (origin !== null && allowedOrigins.has(origin)) return { kind: "allowed-cross-origin", origin };
  return { kind: "rejected", origin: header };
}

/** Request headers a cross-origin browser client may send (checked in the preflight). */
const CORS_ALLOWED_HEADERS = [
  "content-type",
  "x-login-with-provider-service-tier",
  "x-login-with-provider-reasoning-effort",
  "x-lwc-login-nonce",
];

/** Reply headers a cross-origin client may read. */
const CORS_EXPOSED_HEADERS = [
  "retry-after",
  "x-lwc-login-nonce",
  "x-login-with-provider-service-tier-fallback",
  "x-codex-primary-used-percent",
  "x-codex-primary-window-minutes",
  "x-codex-primary-reset-at",
  "x-codex-primary-reset-after-seconds",
  "x-codex-secondary-used-percent",
  "x-codex-secondary-window-minutes",
  "x-codex-secondary-reset-at",
  "x-codex-secondary-reset-after-seconds",
  "x-codex-credits-has-credits",
  "x-codex-credits-balance",
  "x-codex-credits-unlimited",
];

/** Credentialed CORS headers for an allowed origin (the origin is echoed, never `*`). */
export function applyCorsHeaders(headers: Headers, origin: string): void {
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-allow-credentials", "true");
  headers.set("access-control-expose-headers", CORS_EXPOSED_HEADERS.join(", "));
  headers.append("vary", "Origin");
}

/** Extra headers of a preflight reply for an allowed origin. */
export function applyPreflightHeaders(headers: Headers, allowMethods: string): void {
  headers.set("access-control-allow-methods", allowMethods);
  headers.set("access-control-allow-headers", CORS_ALLOWED_HEADERS.join(", "));
  headers.set("access-control-max-age", "600");
}

import "server-only";
/**
 * The origin the client used to reach us. Derived from Host / X-Forwarded-Host / X-Forwarded-Proto,
 * never from request.url alone: Next.js rewrites request.url's host to `localhost`, which would make
 * a real same-origin request look cross-origin (see the toolchain notes).
 */

function firstListValue(value: string | null): string | undefined {
  const first = value?.split(",")[0]?.trim();
  return first ? first : undefined;
}

function requestProtocol(request: Request): string {
  const forwarded = firstListValue(request.headers.get("x-forwarded-proto"))?.toLowerCase();
  if (forwarded === "https" || forwarded === "http") return forwarded;
  return new URL(request.url).protocol === "https:" ? "https" : "http";
}

/** True when the client reached us over HTTPS, directly or through a proxy that says so. */
export function isSecureRequest(request: Request): boolean {
  return requestProtocol(request) === "https";
}

/** `scheme://host[:port]` normalised like URL.origin, or null when the host is unusable. */
export function requestOrigin(request: Request): string | null {
  const host =
    firstListValue(request.headers.get("x-forwarded-host")) ??
    firstListValue(request.headers.get("host")) ??
    new URL(request.url).host;
  const candidate = `${requestProtocol(request)}://${host}`;
  if (!URL.canParse(candidate)) return null;
  const url = new URL(candidate);
  return url.pathname === "/" && !url.username && !url.password ? url.origin : null;
}

/** A browser Origin header value normalised like URL.origin; null for "null" or garbage. */
export function normalizeOrigin(origin: string): string | null {
  if (!URL.canParse(origin)) return null;
  const normalized = new URL(origin).origin;
  return normalized === "null" ? null : normalized;
}

import "server-only";
import type { ProviderAuthError } from "@/lib/upstream/errors";
import { upstreamSnippet } from "@/lib/upstream/redact";

/**
 * ` body="<snippet>"` for a log line, or "" for an empty body: the bounded snippet without tokens,
 * runs of `inputs` (the request's own texts) replaced by `[input]`, JSON-quoted so the line stays
 * one line and the snippet's end is unambiguous.
 */
export function bodyForLog(bodyText: string, inputs: readonly string[] = []): string {
  const snippet = upstreamSnippet(bodyText, { inputs });
  return snippet === undefined ? "" : ` body=${JSON.stringify(snippet)}`;
}

/** ` upstream=<origin>` when the provider could not be reached (log lines only), else "". */
export function upstreamOriginForLog(error: unknown): string {
  const origin = (error as Partial<ProviderAuthError> | null)?.upstreamOrigin;
  return typeof origin === "string" ? ` upstream=${origin}` : "";
}

/**
 * A failed provider call for a log line: `<code> status=<n|none>[ body="…"]`, or, when the provider
 * could not be reached, `network_error upstream=<origin> (<fixed sentence>)`. The origin is written
 * here and nowhere else: replies carry the fixed sentence only.
 */
export function describeProviderErrorForLog(error: ProviderAuthError): string {
  if (error.upstreamOrigin !== undefined) return `${error.code} upstream=${error.upstreamOrigin} (${error.message})`;
  const body = error.body === undefined ? "" : ` body=${JSON.stringify(error.body)}`;
  return `${error.code} status=${error.status ?? "none"}${body}`;
}

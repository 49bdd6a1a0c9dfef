import { z } from "zod";
import clientVersionFile from "./client-version.json" with { type: "json" };
import type { UpstreamConfig } from "./types";

/**
 * The Codex release we speak for: `client_version` on /models, the `version` header on every
 * backend call (the backend gates models on it), our user agent, and the codex executable that
 * scripts/ensure-codex.sh installs. One value in client-version.json; LWC_CLIENT_VERSION overrides it.
 */
export const CLIENT_VERSION: string = clientVersionFile.clientVersion;

/** A plain, honest User-Agent naming the Codex release we are compatible with (the edge challenges requests without one). */
function userAgentFor(clientVersion: string): string {
  return `login-with-chatgpt/0.1 (codex_cli_rs/${clientVersion} compatible)`;
}

/** The real provider's public values (see docs/upstream.md). Every one is overridable. */
export const DEFAULT_UPSTREAM = {
  issuer: "https://auth.openai.com",
  codexBaseUrl: "https://chatgpt.com/backend-api/codex",
  clientId: "app_EMoamEEZ73f0CkXaXp7hrann",
  scope: "openid profile email offline_access",
  originator: "codex_cli_rs",
  clientVersion: CLIENT_VERSION,
  userAgent: userAgentFor(CLIENT_VERSION),
  requestTimeoutMs: 15_000,
} as const;

const httpUrl = z
  .string()
  .trim()
  .refine((value) => /^https?:\/\/[^/]/i.test(value) && URL.canParse(value), "must be an http(s) URL");

const resolvedConfigSchema = z.object({
  issuer: httpUrl,
  codexBaseUrl: httpUrl,
  verificationUrl: httpUrl,
  clientId: z.string().min(1),
  scope: z.string().min(1),
  originator: z.string().min(1),
  clientVersion: z.string().regex(/^\d+\.\d+\.\d+/, "must look like x.y.z"),
  userAgent: z.string().min(1),
  requestTimeoutMs: z.number().int().positive(),
});

function trimTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Drops `undefined` values so a sparse override (e.g. from unset env variables) keeps the defaults. */
function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Builds a complete config from the defaults and the overrides. The verification URL defaults to
 * `${issuer}/codex/device` of the *overridden* issuer, so pointing `issuer` at a mock is enough.
 * Throws an Error naming the bad field when a value is invalid.
 */
export function resolveUpstreamConfig(overrides?: Partial<UpstreamConfig>): UpstreamConfig {
  const given = definedOnly(overrides);
  const issuer = trimTrailingSlashes((given.issuer ?? DEFAULT_UPSTREAM.issuer).trim());
  const merged = {
    ...DEFAULT_UPSTREAM,
    ...given,
    issuer,
    // The user agent follows an overridden client version unless it is overridden itself.
    userAgent: given.userAgent ?? userAgentFor(given.clientVersion ?? DEFAULT_UPSTREAM.clientVersion),
    codexBaseUrl: trimTrailingSlashes((given.codexBaseUrl ?? DEFAULT_UPSTREAM.codexBaseUrl).trim()),
    verificationUrl: trimTrailingSlashes((given.verificationUrl ?? `${issuer}/codex/device`).trim()),
  };
  const parsed = resolvedConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid upstream config: ${issue?.path.join(".") ?? "?"} ${issue?.message ?? ""}`.trim());
  }
  // Resolved at call time so a runtime that replaces globalThis.fetch later is still honoured.
  const fetchImpl: typeof fetch = given.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return { ...parsed.data, fetch: fetchImpl };
}

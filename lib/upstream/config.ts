import { z } from "zod";
import type { UpstreamConfig } from "./types";

/** The real provider's public values (see docs/upstream.md). Every one is overridable. */
export const DEFAULT_UPSTREAM = {
  issuer: "https://auth.openai.com",
  codexBaseUrl: "https://chatgpt.com/backend-api/codex",
  clientId: "app_EMoamEEZ73f0CkXaXp7hrann",
  scope: "openid profile email offline_access",
  originator: "codex_cli_rs",
  clientVersion: "0.169.0",
  // A plain, honest User-Agent: the provider's edge challenges requests that send none.
  userAgent: "login-with-chatgpt/0.1 (codex_cli_rs compatible)",
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

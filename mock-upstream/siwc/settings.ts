import { z } from "zod";

/**
 * What the spec leaves open, as settings (they last until changed or reset). Each default is the
 * most likely real behaviour (docs/mock-upstream.md, "Sign in with ChatGPT").
 */
export const siwcSettingsSchema = z
  .object({
    /** `earliest_refresh_at` in token replies: epoch seconds (default), an ISO string, or null. */
    earliestRefreshAt: z.enum(["epoch_seconds", "iso", "null"]),
    /** The ID token's `aud`: a one-element array (default, as seen live) or a plain string. */
    idTokenAud: z.enum(["array", "string"]),
    /** Token-endpoint error bodies: `{error, error_description}` (default) or `{error: {code, message}}`. */
    errorStyle: z.enum(["oauth", "nested"]),
    /** On reauthorization the callback echoes the issued client_id (default) or omits it. */
    reauthClientId: z.enum(["echo", "omit"]),
    /** The authorize callback carries `scope` (default true; the client must not rely on it either way). */
    callbackScope: z.boolean(),
    /** A refresh reply carries `scope` (default true). */
    refreshScope: z.boolean(),
    /** A refresh reply carries an `id_token` (default true). */
    refreshIdToken: z.boolean(),
    /** A reused refresh token also kills its family (default true). */
    reuseKillsFamily: z.boolean(),
    /** SSE frames carry `event:` lines (default true, standard Responses framing) or only `data:`. */
    sseEventLines: z.boolean(),
    /** Access-token lifetime, default 3600. */
    accessTokenTtlSeconds: z.number().int().positive(),
    /** Refresh-token lifetime, default 30 days; every rotation starts a fresh one. */
    refreshTokenTtlSeconds: z.number().int().positive(),
    /** Authorization-code lifetime, default 60. */
    codeTtlSeconds: z.number().int().positive(),
    /** Successful /v1/responses per (client, host) before 429 usage_limit_exceeded; null = no limit (default). */
    usageLimit: z.number().int().min(0).nullable(),
  })
  .partial()
  .strict();

export type SiwcSettings = Required<z.infer<typeof siwcSettingsSchema>>;

export const DEFAULT_SIWC_SETTINGS: SiwcSettings = {
  earliestRefreshAt: "epoch_seconds",
  idTokenAud: "array",
  errorStyle: "oauth",
  reauthClientId: "echo",
  callbackScope: true,
  refreshScope: true,
  refreshIdToken: true,
  reuseKillsFamily: true,
  sseEventLines: true,
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  codeTtlSeconds: 60,
  usageLimit: null,
};

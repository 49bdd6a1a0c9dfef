import "server-only";
import { z } from "zod";
import {
  CODEX_REALTIME_MODEL,
  DEFAULT_CHATGPT_URL,
  REALTIME_TRANSPORTS,
  VOICE_MODES,
  type RealtimeTransport,
  type VoiceMode,
} from "@/lib/upstream/realtime";
import type { AgentVoiceOptions } from "@/lib/agent-voice/types";
import type { AccountInfo, BackendAuth } from "@/lib/upstream/types";
import type { RateLimitOption } from "../options";

/** What `realtime.getAuth` is asked. */
export interface RealtimeAuthContext {
  request: Request;
  transport: Exclude<RealtimeTransport, "codex">;
  /** The signed-in user of the request (tokens are not included). */
  account: AccountInfo;
}

/**
 * Credential source for the ChatGPT web transports (`wm`, `vp`, `vps`): the access token and
 * account id of the user's ChatGPT web session, which the application obtains itself.
 * `null` = none for this user: `vp`/`vps` then use the login's own tokens, `wm` is refused.
 */
export type RealtimeGetAuth = (context: RealtimeAuthContext) => Promise<BackendAuth | null>;

export interface RealtimeOptions {
  /** Default true. `false` makes every realtime path an unknown path (404). */
  enabled?: boolean;
  /** Transports `/realtime` accepts. Default `["codex"]`. */
  transports?: RealtimeTransport[];
  /** `voiceMode` values accepted. Default all (`wingman`, `advanced`, `standard`). */
  voiceModes?: VoiceMode[];
  /**
   * Largest accepted request body of every realtime route: `POST /realtime`, the agent-voice start
   * and its confirmation. Default `DEFAULT_REALTIME_MAX_REQUEST_BYTES` (an SDP offer is a few KB).
   */
  maxRequestBytes?: number;
  /**
   * Voice models a `POST /realtime` may name in `session.model` (`LWC_ALLOWED_REALTIME_MODELS`);
   * others get 403 `realtime_model_not_allowed`. Default: any. (The agent-voice start's
   * `session.model` is the Codex text model: it is checked like `/responses` models.)
   */
  allowedModels?: string[];
  /**
   * The voice model a codex-transport `POST /realtime` asks for when its `session.model` names none
   * (`LWC_REALTIME_MODEL`). Default `gpt-realtime-1.5`, what the pinned codex 0.171.0 sends. Must be
   * one of `allowedModels` when that is set. The web transports keep their own (`auto`).
   */
  model?: string;
  /**
   * Voice calls per login: `POST /realtime` and agent-voice starts counted together
   * (`LWC_REALTIME_RATE_LIMIT_PER_MINUTE`). Default `DEFAULT_REALTIME_RATE_LIMIT`; `false` turns it off.
   */
  rateLimit?: RateLimitOption | false;
  getAuth?: RealtimeGetAuth;
  /** Origin of the ChatGPT web transports. Default `https://chatgpt.com`. */
  chatgptUrl?: string;
  /** Agent voice through `codex app-server` (the `/realtime/app-server` routes; Node only; docs/agent-voice.md). */
  agentVoice?: AgentVoiceOptions;
  /** @deprecated The old name of `agentVoice`, still read when `agentVoice` is not given. */
  appServer?: AgentVoiceOptions;
}

export interface ResolvedRealtimeOptions {
  enabled: boolean;
  transports: ReadonlySet<RealtimeTransport>;
  voiceModes: ReadonlySet<VoiceMode>;
  maxRequestBytes: number;
  /** Undefined: any model. */
  allowedModels: ReadonlySet<string> | undefined;
  /** The codex transport's voice model when a request names none. */
  model: string;
  rateLimit: RateLimitOption | false;
  getAuth: RealtimeGetAuth | undefined;
  chatgptUrl: string;
}

export const DEFAULT_REALTIME_MAX_REQUEST_BYTES = 64 * 1024;
export const DEFAULT_REALTIME_RATE_LIMIT: RateLimitOption = { limit: 12, windowMs: 60_000 };

const schema = z.object({
  transports: z.array(z.enum(REALTIME_TRANSPORTS)),
  voiceModes: z.array(z.enum(VOICE_MODES)),
  maxRequestBytes: z.number().int().positive(),
  allowedModels: z.array(z.string().trim().min(1).max(128)).optional(),
  model: z.string().trim().min(1).max(128),
  rateLimit: z.union([z.literal(false), z.object({ limit: z.number().int().positive(), windowMs: z.number().int().positive() })]),
  chatgptUrl: z
    .string()
    .trim()
    .refine((value) => /^https?:\/\/[^/]/i.test(value) && URL.canParse(value), "must be an http(s) URL"),
});

/** Applies the defaults; throws an Error naming the bad option. */
export function resolveRealtimeOptions(options: RealtimeOptions = {}): ResolvedRealtimeOptions {
  const checked = schema.safeParse({
    transports: options.transports ?? ["codex"],
    voiceModes: options.voiceModes ?? [...VOICE_MODES],
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_REALTIME_MAX_REQUEST_BYTES,
    allowedModels: options.allowedModels,
    model: options.model ?? CODEX_REALTIME_MODEL,
    rateLimit: options.rateLimit ?? DEFAULT_REALTIME_RATE_LIMIT,
    chatgptUrl: options.chatgptUrl ?? DEFAULT_CHATGPT_URL,
  });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`Invalid provider handler option realtime.${issue?.path.join(".") ?? "?"}: ${issue?.message ?? ""}`);
  }
  const { allowedModels, model } = checked.data;
  if (allowedModels?.length && !allowedModels.includes(model)) {
    throw new Error(
      `Invalid provider handler option realtime.model: it must be one of realtime.allowedModels` +
        (options.model === undefined ? ` (unset, it is ${CODEX_REALTIME_MODEL})` : ""),
    );
  }
  return {
    enabled: options.enabled ?? true,
    transports: new Set(checked.data.transports),
    voiceModes: new Set(checked.data.voiceModes),
    maxRequestBytes: checked.data.maxRequestBytes,
    allowedModels: allowedModels?.length ? new Set(allowedModels) : undefined,
    model,
    rateLimit: checked.data.rateLimit,
    getAuth: options.getAuth,
    chatgptUrl: checked.data.chatgptUrl.replace(/\/+$/, ""),
  };
}

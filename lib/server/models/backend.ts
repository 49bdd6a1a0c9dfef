import "server-only";
import type { ModelDetails } from "@/lib/upstream/models";
import type { InstructionsMode } from "@/lib/upstream/responses";
import type { ModelInfo, ReasoningEffort, ServiceTier } from "@/lib/upstream/types";
import type { ServerContext } from "../context";
import type { SessionManager } from "../session/manager";
import { signInKindOf, type SignInKind } from "../session/capabilities";
import type { AuthenticatedRecord, LoadedSession } from "../session/record";
import { createAccountModelsCache } from "./account-models";
import { createChatGptBackend } from "./chatgpt-backend";
import { createSiwcBackend } from "./siwc-backend";

/**
 * A /responses body as the route read it (responses/body.ts): the only shape rules we check
 * ourselves are `model`, `input` and `stream`; the rest of the Responses API body passes through.
 * `stream: true` streams the reply; absent or false (the API's default) gets one JSON reply.
 */
export type ResponsesRequestBody = Record<string, unknown> & { model: string; input: string | unknown[]; stream?: boolean };

/** A body in the shape a backend sends upstream. */
type PreparedBody = Record<string, unknown> & { model: string };

/** What the server and the request's headers add to a /responses body, whichever backend takes it. */
export interface ResponsesSettings {
  serviceTier?: ServiceTier;
  reasoningEffort?: ReasoningEffort;
  instructions?: string;
  instructionsMode: InstructionsMode;
}

/** One model call: the request, the session it goes with and what is sent. */
export interface ResponsesCall {
  request: Request;
  /** The session as `ready` left it: its id keys a forced refresh. */
  session: LoadedSession<AuthenticatedRecord>;
  /** The record with tokens fresh for this call. */
  record: AuthenticatedRecord;
  payload: PreparedBody;
  /** The body as the client sent it: its texts become `[input]` in snippets; `stream` picks the reply. */
  original: ResponsesRequestBody;
  /** The model's catalogue entry, when the account lists it. */
  entry: ModelInfo | undefined;
}

/**
 * Where a session's model calls go, chosen once per session record by how it signed in: the
 * ChatGPT backend for a device-code login (./chatgpt-backend.ts), the API of Sign in with ChatGPT
 * for a SIWC session (./siwc-backend.ts). /models and /responses call it and never ask which it is.
 */
export interface ModelBackend {
  /**
   * Throws when this session may not reach the model API now (a SIWC session: SIWC turned off since
   * the sign-in, `siwc_disabled`; plan usage not granted, `plan_usage_not_granted`). `extra` joins
   * the refusal's body (/models adds `models: []`).
   */
  admit(record: AuthenticatedRecord, extra?: Record<string, unknown>): void;
  /** The key of the account's catalogue in the per-account cache. */
  catalogueKey(record: AuthenticatedRecord): string;
  /** The account's catalogue from upstream: one call (tokens refreshed first unless `refreshed` is given). Throws ProviderAuthError. */
  fetchCatalogue(session: LoadedSession<AuthenticatedRecord>, refreshed?: AuthenticatedRecord): Promise<ModelInfo[]>;
  /** A catalogue entry for the model picker (/models' `modelDetails`). */
  describe(model: ModelInfo, clientVersion: string): ModelDetails;
  /** The body in the shape this backend takes; throws `ApiError` for what it would refuse. */
  prepare(body: ResponsesRequestBody, settings: ResponsesSettings): PreparedBody;
  /** The session the model check and the call go with (refreshed first where a refresh may narrow what it may do). */
  ready(session: LoadedSession<AuthenticatedRecord>): Promise<LoadedSession<AuthenticatedRecord>>;
  /** POST /responses upstream, and the reply: the stream as it arrives, or one JSON object. */
  respond(call: ResponsesCall): Promise<Response>;
}

/** The handler's two backends and the per-account catalogue cache they share. */
export function createModelBackends(ctx: ServerContext, manager: SessionManager) {
  const cache = createAccountModelsCache(ctx.options.now);
  const backends: Record<SignInKind, ModelBackend> = {
    device: createChatGptBackend(ctx, manager),
    siwc: createSiwcBackend(ctx, manager, cache),
  };
  const backendFor = (record: AuthenticatedRecord): ModelBackend => backends[signInKindOf(record)];

  return {
    backendFor,
    /**
     * The account's catalogue (full entries, in the backend's order) through the cache: one upstream
     * call per account and cache period, concurrent misses sharing it.
     */
    catalogue(session: LoadedSession<AuthenticatedRecord>, refreshed?: AuthenticatedRecord): Promise<ModelInfo[]> {
      const record = refreshed ?? session.record;
      const backend = backendFor(record);
      return cache.get(backend.catalogueKey(record), () => backend.fetchCatalogue(session, refreshed));
    },
  };
}

export type ModelBackends = ReturnType<typeof createModelBackends>;

import "server-only";
import type { RateLimiter } from "@/lib/stores/types";
import type { SessionCookieSigner } from "./http/cookies";
import type { ResolvedOptions } from "./options";
import type { RefreshCoordinator } from "./session/refresh";
import type { Sealer } from "./session/seal";
import type { SessionStore } from "./session/store";
import type { SiwcClient } from "./siwc/client";

/** Everything a route needs, built once per handler. */
export interface ServerContext {
  options: ResolvedOptions;
  sessions: SessionStore;
  /** Seals values with LWC_SECRET (the session records, and what agent voice shares between instances). */
  sealer: Sealer;
  signer: SessionCookieSigner;
  refresher: RefreshCoordinator;
  /** Sign in with ChatGPT; undefined when it is off. */
  siwc: SiwcClient | undefined;
  /** Undefined when the limit is turned off. */
  loginLimiter: RateLimiter | undefined;
  loginGlobalLimiter: RateLimiter | undefined;
  /** POST /login reusing a pending code, per login (on when the login limit is). */
  loginReuseLimiter: RateLimiter | undefined;
  responsesLimiter: RateLimiter | undefined;
  /** GET /models per session: the /responses limit's numbers, its own bucket. */
  modelsLimiter: RateLimiter | undefined;
  /** Voice calls per login: POST /realtime and agent-voice starts share it. */
  realtimeLimiter: RateLimiter | undefined;
  /** The chat history's routes per login (undefined when history is off or the limit is). */
  historyLimiter: RateLimiter | undefined;
  /** Public share reads per client address. */
  sharedLimiter: RateLimiter | undefined;
}

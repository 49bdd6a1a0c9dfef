import { randomUUID } from "node:crypto";
import type { RouteCall } from "../context";
import { sendJson } from "../http-util";
import { handleAuthorize, handleDecision } from "./authorize";
import { DECISION_PATH } from "./consent-page";
import type { SiwcContext, SiwcHandler } from "./context";
import { AUTHORIZE_PATH, DISCOVERY_PATH, handleDiscovery, handleJwks, JWKS_PATH, REVOKE_PATH, TOKEN_PATH } from "./discovery";
import { SigningKey } from "./keys";
import { completeModel, defaultSiwcCatalog, handleSiwcModels, type SiwcCatalogEntry, type SiwcModel } from "./models";
import { handleSiwcResponses, sendRouteNotSupported } from "./responses";
import { DEFAULT_SIWC_SETTINGS, type SiwcSettings } from "./settings";
import { SiwcState, type AuthorizationLogEntry, type Eligibility, type RefreshFamily, type Registration, type SiwcAccount } from "./state";
import { SiwcSwitches, type SiwcSwitchRule } from "./switches";
import { handleRevoke, handleToken } from "./token";

const SIWC_PREFIX = "/siwc";

const ROUTES: Record<string, SiwcHandler> = {
  [`GET ${DISCOVERY_PATH}`]: handleDiscovery,
  [`GET ${JWKS_PATH}`]: handleJwks,
  [`GET ${AUTHORIZE_PATH}`]: handleAuthorize,
  [`POST ${DECISION_PATH}`]: handleDecision,
  [`POST ${TOKEN_PATH}`]: handleToken,
  [`POST ${REVOKE_PATH}`]: handleRevoke,
  "GET /v1/models": handleSiwcModels,
  "POST /v1/responses": handleSiwcResponses,
};

/** What the control API shows of the SIWC state (no tokens). */
interface SiwcSnapshot {
  accounts: SiwcAccount[];
  registrations: Registration[];
  families: RefreshFamily[];
  /** Successful /v1/responses per client and host. */
  usage: { clientId: string; hostId: string; count: number }[];
  authorizations: AuthorizationLogEntry[];
  switches: SiwcSwitchRule[];
  settings: SiwcSettings;
  clockOffsetSeconds: number;
}

/** In-process controls for the SIWC part (also under /__mock/siwc/). */
export interface MockSiwcControls {
  /** Change settings (until reset); returns the settings in force. */
  configure(patch: Partial<SiwcSettings>): SiwcSettings;
  arm(rule: SiwcSwitchRule): void;
  clearSwitches(): void;
  snapshot(): SiwcSnapshot;
  /** "Disconnect the app in ChatGPT settings": ends every refresh family of the client; returns how many. */
  disconnect(clientId: string): number;
  /** Create or change a person (eligibility plus, pro, free or workspace_ineligible). */
  setAccount(email: string, changes: { name?: string; eligibility?: Eligibility }): SiwcAccount;
  /** Move the mock's clock on (tokens and codes expire by it). */
  advanceClock(seconds: number): void;
  /** Replace the /v1/models catalog for everyone (null = the default catalog). */
  setCatalog(models: SiwcCatalogEntry[] | null): void;
}

/** Sign in with ChatGPT on the mock: issuer `${url}/siwc`, API base `${url}/siwc/v1`. */
export class SiwcMock {
  private readonly context: SiwcContext;
  private catalogOverride: SiwcModel[] | null = null;

  private constructor(base: () => string, key: SigningKey, chunkDelayMs: () => number) {
    this.context = {
      issuer: () => `${base()}${SIWC_PREFIX}`,
      apiBase: () => `${base()}${SIWC_PREFIX}/v1`,
      state: new SiwcState(),
      settings: { ...DEFAULT_SIWC_SETTINGS },
      switches: new SiwcSwitches(),
      key,
      catalog: (account, workspace) => (this.catalogOverride ? structuredClone(this.catalogOverride) : defaultSiwcCatalog(account, workspace)),
      chunkDelayMs,
    };
  }

  static async create(base: () => string, chunkDelayMs: () => number): Promise<SiwcMock> {
    return new SiwcMock(base, await SigningKey.create(), chunkDelayMs);
  }

  /** Whether a path belongs to the SIWC part. */
  static owns(pathname: string): boolean {
    return pathname === SIWC_PREFIX || pathname.startsWith(`${SIWC_PREFIX}/`);
  }

  async handle(call: RouteCall): Promise<void> {
    call.response.setHeader("x-request-id", `req_${randomUUID().replaceAll("-", "")}`);
    const path = call.url.pathname.slice(SIWC_PREFIX.length);
    const handler = ROUTES[`${call.request.method} ${path}`];
    if (handler) return handler(this.context, call);
    if (path === "/v1" || path.startsWith("/v1/")) return sendRouteNotSupported(this.context, call);
    const knownPath = Object.keys(ROUTES).some((key) => key.endsWith(` ${path}`));
    sendJson(call.response, knownPath ? 405 : 404, { detail: knownPath ? "Method Not Allowed" : "Not Found" });
  }

  reset(): void {
    this.context.state.clear();
    this.context.switches.clear();
    Object.assign(this.context.settings, DEFAULT_SIWC_SETTINGS);
    this.catalogOverride = null;
  }

  readonly controls: MockSiwcControls = {
    configure: (patch) => {
      Object.assign(this.context.settings, patch);
      return { ...this.context.settings };
    },
    arm: (rule) => this.context.switches.arm(rule),
    clearSwitches: () => this.context.switches.clear(),
    snapshot: () => this.snapshot(),
    disconnect: (clientId) => this.context.state.disconnect(clientId),
    setAccount: (email, changes) => ({ ...this.context.state.account(email, changes) }),
    advanceClock: (seconds) => {
      this.context.state.clockOffsetMs += seconds * 1000;
    },
    setCatalog: (models) => {
      this.catalogOverride = models ? models.map(completeModel) : null;
    },
  };

  private snapshot(): SiwcSnapshot {
    const { state } = this.context;
    return structuredClone({
      accounts: [...state.accounts.values()],
      registrations: [...state.registrations.values()],
      families: [...state.families.values()],
      usage: [...state.usage.entries()].map(([key, count]) => {
        const [clientId = "", hostId = ""] = key.split(" ");
        return { clientId, hostId, count };
      }),
      authorizations: state.authorizations,
      switches: this.context.switches.list(),
      settings: this.context.settings,
      clockOffsetSeconds: state.clockOffsetMs / 1000,
    });
  }
}

import type { RouteCall } from "../context";
import type { SigningKey } from "./keys";
import type { SiwcModel } from "./models";
import type { SiwcSettings } from "./settings";
import type { SiwcAccount, SiwcState, Workspace } from "./state";
import type { SiwcSwitches } from "./switches";

/** The `resource` the real service expects (the mock also accepts its own API base). */
export const OPENAI_RESOURCE = "https://api.openai.com/v1";

/** Everything a SIWC route needs. */
export interface SiwcContext {
  /** `${mock url}/siwc` */
  issuer(): string;
  /** `${mock url}/siwc/v1` */
  apiBase(): string;
  state: SiwcState;
  settings: SiwcSettings;
  switches: SiwcSwitches;
  key: SigningKey;
  /** The /v1/models catalog for an account in a workspace (the default, or the one set by the control API). */
  catalog(account: SiwcAccount, workspace: Workspace): SiwcModel[];
  /** The mock's stream pacing (option streamChunkDelayMs). */
  chunkDelayMs(): number;
}

export type SiwcHandler = (siwc: SiwcContext, call: RouteCall) => void | Promise<void>;

import "server-only";
import { createProviderHandler, type ProviderHandler } from "@/lib/server/handler";
import { closeOnShutdown } from "@/lib/server/http/shutdown";
import { optionsFromEnv } from "./env-options";

export { ENV_VARIABLES, optionsFromEnv } from "./env-options";

// LWC_API_BASE_PATH is a build-time setting: next.config.ts inlines it (this literal reads the build's
// value under Next), like the page's calls and the rewrite onto app/api/provider, so the three agree.
const appOptions = optionsFromEnv({ ...process.env, LWC_API_BASE_PATH: process.env.LWC_API_BASE_PATH });

/** The one handler instance of the app, built from the environment once per server process. */
export const providerHandler: ProviderHandler = createProviderHandler(appOptions);
// SIGTERM/SIGINT (hooks installed by instrumentation.ts) end agent voice's processes.
closeOnShutdown(() => providerHandler.close());

/** False when `LWC_RESPONSES_PROXY=off`: the page then says so instead of offering a sign-in. */
export const modelAccessEnabled: boolean = appOptions.enableResponsesProxy !== false;

/** False when `LWC_WEB_SEARCH=off`: the chat then offers no "Search the web" switch. */
export const webSearchEnabled: boolean = appOptions.responsesProxy?.webSearch !== false;

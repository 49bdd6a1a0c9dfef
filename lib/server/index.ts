import "server-only";
/**
 * What code of your own takes from lib/server (docs/server.md): the handler, the AI SDK provider
 * for server code, the error a route of yours throws and the codes it may carry, the JSON body
 * reader, and the types. The app builds its one handler in lib/provider-app.ts.
 */
export { createProviderHandler, type ProviderHandler, type ProxyFetchOptions } from "./handler";
export type { ProviderHandlerOptions } from "./options";
export { createSessionProvider, listSessionModels } from "./session-provider";
export { ApiError } from "./http/api-error";
export { readJsonRequest } from "./http/json-body";
export { API_ERROR_CODES, type ApiErrorCode } from "@/lib/error-codes";
export type { PublicSessionState } from "./session/public-state";
export type { SessionCapabilities } from "./session/capabilities";
export type { ExportedTokens } from "./session/token-export";

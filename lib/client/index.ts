// Browser client for the session service: the AI SDK provider, the session hook and the chat transport.
export { createProviderProxy, type ProviderProxy, type ProviderProxyOptions } from "./provider-proxy";
export { DEFAULT_BASE_PATH } from "@/lib/shared/base-path";
export { ProviderProxyError, isProviderProxyError } from "./provider-proxy-error";
export { useProviderSession, type ProviderSession, type UseProviderSessionOptions } from "./use-provider-session";
export { createSessionApi, type SessionApi } from "./session-api";
export type { PublicSessionState, SessionStatus, SessionUser, SignInMethod, SignInOptions, SiwcSessionInfo } from "./session-state";
export { describeSessionError, type ProviderSessionError } from "./session-error";
export { ProxyChatTransport, type ProxyChatTransportOptions } from "./proxy-chat-transport";
export { describeChatError, decodeChatError, type ChatErrorInfo, type UsageLimitInfo } from "./chat-error";
export {
  chatRequestOptions,
  DEFAULT_REASONING_EFFORT,
  REASONING_EFFORTS,
  type ChatCallSettings,
  type ReasoningEffort,
} from "./chat-request-options";
export type { ResponseMetadata, ResponseMetadataStore } from "./response-metadata-store";
export { readUsageHeaders, type UsageSnapshot, type UsageWindow } from "./usage-headers";
export {
  connectRealtime,
  type ConnectRealtimeOptions,
  type RealtimeCall,
  type RealtimeCallState,
  type RealtimeSessionOptions,
} from "./realtime";
export { RealtimeError, isRealtimeError, describeRealtimeError, type RealtimeErrorInfo } from "./realtime-error";
export type { RealtimeServerEvent } from "./realtime-events";
export { applyTranscriptEvent, type TranscriptLine } from "./realtime-transcript";

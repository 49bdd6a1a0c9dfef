"use client";

import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { usageShown } from "@/lib/client/chat-chrome";
import type { ChatErrorInfo } from "@/lib/client/chat-error";
import { createOnDemandChatTransport } from "@/lib/client/on-demand-chat-transport";
import { createProxyClient } from "@/lib/client/proxy-client";
import { emptyResponseMetadata } from "@/lib/client/response-metadata-store";
import type { SiwcSessionInfo } from "@/lib/client/session-state";
import { useChatSettings } from "./use-chat-settings";
import { useModelList } from "./use-model-list";

interface ChatCallsOptions {
  /** Signed in with ChatGPT: without plan usage, nothing may be sent (the server would refuse it). */
  siwc: SiwcSessionInfo | null;
  /** False with LWC_WEB_SEARCH=off. */
  webSearchAvailable: boolean;
  /** The server says the session is gone (a 401 on /models, or a turn refused as signed out). */
  onSessionLost: () => void;
  /** The open conversation's id: the Search switch is on for one conversation at a time. */
  conversationId: string | undefined;
}

/**
 * What the chat's model calls go out with and what their replies said: the transport, the model
 * list and the person's choices (model, effort, Fast, the Picture and Search switches), the
 * latest turn's failure, and the usage and Fast fallback the replies' headers reported.
 */
export function useChatCalls({ siwc, webSearchAvailable, onSessionLost, conversationId }: ChatCallsOptions) {
  const client = useMemo(() => createProxyClient(), []);
  const transport = useMemo(() => createOnDemandChatTransport(client), [client]);
  // The model code downloads when the person starts writing (any input on the page), not with the chat.
  useEffect(() => {
    const preload = () => transport.preload();
    document.addEventListener("input", preload, { capture: true, once: true });
    return () => document.removeEventListener("input", preload, { capture: true });
  }, [transport]);
  const modelList = useModelList(client, onSessionLost);
  const settings = useChatSettings(modelList.models);
  const metadata = useSyncExternalStore(client.responseMetadata.subscribe, client.responseMetadata.getSnapshot, emptyResponseMetadata);
  const [dismissedFallbackReply, setDismissedFallbackReply] = useState(-1);
  const [latestFailure, setLatestFailure] = useState<ChatErrorInfo | undefined>(undefined);
  const [imageMode, setImageMode] = useState(false);
  // Off by default; while on, every message of the conversation it was turned on in may search the
  // web. A new chat (or another conversation) starts with it off.
  const [webSearchFor, setWebSearchFor] = useState<string | null>(null);
  const webSearch = conversationId !== undefined && webSearchFor === conversationId;
  const setWebSearch = useCallback((on: boolean) => setWebSearchFor(on ? (conversationId ?? null) : null), [conversationId]);
  // This screen saw the session end: its "Signed out" turns are current. One it shows from before
  // (the screen comes back after signing in again) can be sent now.
  const [sessionLostHere, setSessionLostHere] = useState(false);
  const chatOff = siwc !== null && !siwc.planUsage;
  const current = settings.current;
  const searchOn = webSearchAvailable && webSearch;
  const callSettings = useMemo(() => (chatOff ? null : current && searchOn ? { ...current, webSearch: true } : current), [chatOff, current, searchOn]);

  // A turn refused as signed out means the login is gone: re-read the session, which brings up the
  // sign-in screen with the reason (the conversation stays in this browser).
  const onTurnSignedOut = useCallback(() => {
    setSessionLostHere(true);
    onSessionLost();
  }, [onSessionLost]);
  /** A new chat starts without the last one's failure and Fast notice. */
  const forgetLatest = useCallback(() => {
    setLatestFailure(undefined);
    client.responseMetadata.clearFallback();
  }, [client]);

  return {
    transport,
    modelList,
    settings,
    /** The chosen model's name as the picker shows it. */
    modelName: modelList.models.find((model) => model.slug === settings.model)?.displayName ?? settings.model,
    chatOff,
    callSettings,
    imageMode,
    setImageMode,
    webSearch,
    setWebSearch,
    onLatestFailure: setLatestFailure,
    onTurnSignedOut,
    forgetLatest,
    sessionLostHere,
    /** What the header's meter shows (full until the reset after a usage limit). */
    usage: usageShown(metadata.usage, latestFailure),
    showFallback: Boolean(metadata.serviceTierFallback) && metadata.replyCount !== dismissedFallbackReply,
    dismissFallback: () => setDismissedFallbackReply(metadata.replyCount),
  };
}

"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { textOf, type ChatUIMessage } from "@/lib/client/chat-turns";
import { titleFromText } from "@/lib/client/conversation-store";
import { canBeTitled, titleModel } from "@/lib/client/conversation-titles";
import { generatedTitlesOn, rememberGeneratedTitles } from "@/lib/client/local-preferences";
import { onDemand } from "@/lib/client/on-demand";
import type { ModelDetails } from "@/lib/client/provider-proxy";
import type { Conversations } from "./use-conversations";

interface GeneratedTitlesOptions {
  /** The account's models (the allowed ones, best first). */
  models: ModelDetails[];
  /** No model may be called now (signed in with ChatGPT without plan usage). */
  chatOff: boolean;
  conversations: Pick<Conversations, "read" | "organise">;
}

export interface GeneratedTitles {
  /** The setting: on unless turned off in this browser. */
  enabled: boolean;
  setEnabled: (on: boolean) => void;
  /** A conversation's first answer has arrived: ask for its title (when on, and the person has not named it). */
  afterFirstAnswer: (conversationId: string, messages: ChatUIMessage[]) => void;
}

/** The title call and a provider of its own, downloaded with the model code at the first title. */
async function loadTitleCall() {
  const [{ createProviderProxy }, { generateTitle }] = await Promise.all([import("@/lib/client/provider-proxy"), import("@/lib/client/title-call")]);
  // A provider of its own: the title call's reply must not replace what the chat's last reply said
  // (its Fast fallback notice) in the chat's provider's response metadata.
  const provider = createProviderProxy();
  return (model: ModelDetails, messages: ChatUIMessage[], signal: AbortSignal) => generateTitle(provider, model, messages, signal);
}

/** Whether the kept title is still the first question's line (not yet generated here, in another tab or on another device). */
function titledByFirstLine(title: string, messages: readonly ChatUIMessage[]): boolean {
  const first = messages.find((message) => message.role === "user");
  return title === titleFromText(first ? textOf(first) : "");
}

/**
 * Names conversations after their first answer: one call to the account's smallest model
 * (lib/client/conversation-titles.ts), taken only while the person has not renamed the
 * conversation and no other tab or device has titled it. The title goes to the server and the
 * other tabs like a rename. A failed call leaves the first line as the title, silently.
 */
export function useGeneratedTitles({ models, chatOff, conversations }: GeneratedTitlesOptions): GeneratedTitles {
  const titleCall = useMemo(() => onDemand(loadTitleCall), []);
  const [enabled, setEnabledState] = useState(generatedTitlesOn);
  const inFlight = useRef(new Map<string, AbortController>());
  const { read, organise } = conversations;

  const setEnabled = useCallback((on: boolean) => {
    rememberGeneratedTitles(on);
    setEnabledState(on);
  }, []);

  // Leaving the screen (sign-out) ends the calls still out.
  useEffect(() => {
    const calls = inFlight.current;
    return () => {
      for (const controller of calls.values()) controller.abort();
      calls.clear();
    };
  }, []);

  const afterFirstAnswer = useCallback(
    (conversationId: string, messages: ChatUIMessage[]) => {
      const model = titleModel(models);
      if (!enabled || chatOff || !model || !canBeTitled(messages) || inFlight.current.has(conversationId)) return;
      const controller = new AbortController();
      inFlight.current.set(conversationId, controller);
      void (async () => {
        try {
          // Named by the person already (before the answer came), or titled elsewhere: that title stays, and no call is spent.
          const kept = await read(conversationId);
          if (!kept || kept.titleEdited || !titledByFirstLine(kept.title, messages)) return;
          const generate = await titleCall.load();
          const title = await generate(model, messages, controller.signal);
          if (title) organise(conversationId, { generatedTitle: title });
        } catch {
          // The first line stays the title; the chat itself reports a lost session or a limit.
        } finally {
          if (inFlight.current.get(conversationId) === controller) inFlight.current.delete(conversationId);
        }
      })();
    },
    [chatOff, enabled, models, organise, read, titleCall],
  );

  return { enabled, setEnabled, afterFirstAnswer };
}

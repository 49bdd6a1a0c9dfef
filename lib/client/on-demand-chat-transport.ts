import type { ChatTransport, UIMessage } from "ai";
import { onDemand } from "./on-demand";
import type { ProxyClient } from "./proxy-client";

type OnDemandChatTransport = ChatTransport<UIMessage> & {
  /** Starts the download ahead of the first message (the person started writing one). */
  preload(): void;
};

/**
 * The chat screen's transport: a ProxyChatTransport over `client`, whose model code (the AI SDK's
 * OpenAI provider, about 40 KB gzipped) downloads at the first message, or at `preload()`.
 */
export function createOnDemandChatTransport(client: ProxyClient): OnDemandChatTransport {
  const transport = onDemand(async () => {
    const [{ providerProxyFor }, { ProxyChatTransport }] = await Promise.all([import("./provider-proxy"), import("./proxy-chat-transport")]);
    return new ProxyChatTransport({ provider: providerProxyFor(client) });
  });
  return {
    async sendMessages(options) {
      const loaded = await transport.load().catch(() => {
        // What fetch throws when the network fails, so the chat says "Connection problem" and the turn can be retried.
        throw new TypeError("The chat's model code could not be downloaded.");
      });
      return loaded.sendMessages(options);
    },
    // The stream lives in this tab only; there is nothing to resume after a reload.
    reconnectToStream: async () => null,
    preload: () => void transport.load().catch(() => undefined), // the first message says so if it fails again
  };
}

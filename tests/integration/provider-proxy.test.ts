/**
 * The browser client against the real handler (served over HTTP on 127.0.0.1) and the mock upstream.
 * A cookie-keeping fetch stands in for the browser's cookie jar; nothing of ours is stubbed.
 */
import { streamText, type UIMessage, type UIMessageChunk } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BASE, signIn, startHarness, type Harness, type TestClient } from "./harness";
import { decodeChatError } from "@/lib/client/chat-error";
import { chatRequestOptions } from "@/lib/client/chat-request-options";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProviderProxyError } from "@/lib/client/provider-proxy-error";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { createSessionApi } from "@/lib/client/session-api";

/** A fetch that sends and keeps the client's session cookie, and records the headers it was asked to send. */
function cookieFetch(client: TestClient, sentHeaders: Headers[] = []): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    sentHeaders.push(new Headers(headers));
    if (client.cookie !== undefined) headers.set("cookie", `lwc_session=${client.cookie}`);
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...rest] = pair!.split("=");
      if (name!.trim() !== "lwc_session") continue;
      client.cookie = /max-age=0/i.test(line) ? undefined : decodeURIComponent(rest.join("="));
    }
    return response;
  };
}

function userMessage(text: string, id = crypto.randomUUID()): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

async function readChunks(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

function textOf(chunks: UIMessageChunk[]): string {
  return chunks.map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");
}

function errorOf(chunks: UIMessageChunk[]) {
  const chunk = chunks.find((candidate) => candidate.type === "error");
  if (!chunk || chunk.type !== "error") throw new Error(`no error chunk in ${chunks.map((c) => c.type).join(",")}`);
  return decodeChatError(new Error(chunk.errorText))!;
}

describe("browser client against the real handler", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ handler: { responsesProxy: { rateLimit: { limit: 1000, windowMs: 60_000 } } } });
  });
  afterAll(async () => {
    await harness.close();
  });
  afterEach(() => {
    harness.mock.clearFaults();
  });

  async function signedInProxy(sentHeaders?: Headers[]) {
    const client = harness.client();
    await signIn(harness, client);
    const provider = createProviderProxy({ basePath: `${harness.served.url}${BASE}/`, fetch: cookieFetch(client, sentHeaders) });
    return { client, provider };
  }

  it("listModels throws ProviderProxyError 401 when signed out", async () => {
    const provider = createProviderProxy({ basePath: `${harness.served.url}${BASE}`, fetch: cookieFetch(harness.client()) });
    const error = await provider.listModels().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderProxyError);
    expect(error).toMatchObject({ status: 401, code: "not_authenticated", isSignedOut: true });
  });

  it("listModels returns the account's usable slugs once signed in", async () => {
    const { provider } = await signedInProxy();
    expect(await provider.listModels()).toEqual(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-5.5", "gpt-5.4-mini"]);
  });

  it("listModelDetails keeps a model gated above our client version, marked unavailable with the reason", async () => {
    const { provider } = await signedInProxy();
    const details = await provider.listModelDetails();
    expect(details.map((model) => model.slug)).toEqual(["gpt-6.1-sol", "gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-7-sol", "gpt-5.5", "gpt-5.4-mini"]);
    const gated = details.filter((model) => model.unavailable);
    expect(gated.map((model) => model.slug)).toEqual(["gpt-7-sol"]);
    expect(gated[0]!.unavailable).toMatchObject({ reason: "client_version_outdated", message: expect.stringContaining("LWC_CLIENT_VERSION") });
  });

  it("streams a reply through /responses, drops the dummy Authorization header and records usage headers", async () => {
    const sent: Headers[] = [];
    const { provider } = await signedInProxy(sent);
    const result = streamText({ model: provider("gpt-5.5"), prompt: "hello proxy", maxRetries: 0, providerOptions: { openai: { store: false } } });
    expect(await result.text).toBe('You said: "hello proxy".');

    const responsesCall = sent.at(-1)!;
    expect(responsesCall.has("authorization")).toBe(false);
    const usage = provider.responseMetadata.getSnapshot().usage;
    expect(usage?.primary?.usedPercent).toBeGreaterThan(0);
    expect(usage?.primary?.windowMinutes).toBe(300);
    expect(usage?.primary?.resetsAt).toBeGreaterThan(Date.now());
  });

  it("the chat transport sends model, effort and earlier turns, and streams reasoning and text chunks", async () => {
    const { provider } = await signedInProxy();
    const transport = new ProxyChatTransport({ provider });
    const options = chatRequestOptions({ model: "gpt-6-astra", reasoningEffort: "high", fast: false });
    const messages: UIMessage[] = [
      userMessage("first question"),
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "first answer" }] },
      userMessage("second question"),
    ];
    const chunks = await readChunks(
      await transport.sendMessages({ trigger: "submit-message", chatId: "c1", messageId: undefined, messages, abortSignal: undefined, ...options }),
    );
    expect(textOf(chunks)).toBe('You said: "second question". Earlier you said: "first question".');
    expect(chunks.some((chunk) => chunk.type === "reasoning-delta")).toBe(true);

    const upstream = harness.mock.requests({ path: "/backend-api/codex/responses" }).at(-1)!;
    expect(upstream.body).toMatchObject({ model: "gpt-6-astra", store: false, reasoning: { effort: "high" } });
  });

  it("Fast on a model without the fast tier comes back with the fallback header recorded", async () => {
    const { provider } = await signedInProxy();
    const transport = new ProxyChatTransport({ provider });
    const chunks = await readChunks(
      await transport.sendMessages({
        trigger: "submit-message",
        chatId: "c2",
        messageId: undefined,
        messages: [userMessage("quick one")],
        abortSignal: undefined,
        ...chatRequestOptions({ model: "gpt-5.4-mini", reasoningEffort: "low", fast: true }),
      }),
    );
    expect(textOf(chunks)).toBe('You said: "quick one".');
    expect(provider.responseMetadata.getSnapshot().serviceTierFallback).toBe("auto");
  });

  it("describes model_not_allowed, a model above our client version and the plan's usage limit from the error bodies", async () => {
    const { provider } = await signedInProxy();
    const transport = new ProxyChatTransport({ provider });
    const send = (model: string, text: string) =>
      transport
        .sendMessages({
          trigger: "submit-message",
          chatId: "c3",
          messageId: undefined,
          messages: [userMessage(text)],
          abortSignal: undefined,
          ...chatRequestOptions({ model, reasoningEffort: "medium", fast: false }),
        })
        .then(readChunks);

    const notAllowed = errorOf(await send("gpt-5.5-codex-internal", "hi"));
    expect(notAllowed).toMatchObject({ code: "model_not_allowed", status: 403, model: "gpt-5.5-codex-internal" });

    const outdated = errorOf(await send("gpt-7-sol", "hi"));
    expect(outdated).toMatchObject({ code: "client_version_outdated", status: 400, model: "gpt-7-sol" });
    expect(outdated.message).toMatch(/^“gpt-7-sol” needs a newer client version than this server uses\./);

    harness.mock.addFault({ fault: "usage_limit" });
    const limited = errorOf(await send("gpt-5.5", "hi again"));
    expect(limited.code).toBe("usage_limit");
    expect(limited.status).toBe(429);
    expect(limited.usageLimit?.resetsAt).toBeGreaterThan(Date.now());
  });

  it("a stream cut mid-answer fails the stream with an error described in words", async () => {
    const { provider } = await signedInProxy();
    const transport = new ProxyChatTransport({ provider });
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c5",
      messageId: undefined,
      messages: [userMessage("please cut this one [[mock:stream_cut]]")],
      abortSignal: undefined,
      ...chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }),
    });
    // The proxy ends a broken-off reply with an `error` event; useChat shows it as the chat error.
    const chunks = await readChunks(stream);
    expect(textOf(chunks)).toMatch(/^You said/);
    expect(errorOf(chunks)).toEqual({
      code: "stream_failed",
      message: "The model's reply broke off before it finished. Try again.",
    });
  });

  it("stopping aborts the request all the way upstream", async () => {
    const { provider } = await signedInProxy();
    const transport = new ProxyChatTransport({ provider });
    const controller = new AbortController();
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c4",
      messageId: undefined,
      messages: [userMessage("a long enough prompt to stream for a while, word by word, with many words in it")],
      abortSignal: controller.signal,
      ...chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }),
    });
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended before any text arrived");
      if (value.type === "text-delta") break;
    }
    const aborted = harness.mock.waitForAbort(10_000);
    controller.abort();
    await reader.cancel().catch(() => undefined);
    expect((await aborted).aborted).toBe(true);
  });
});

describe("rate limit", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ handler: { responsesProxy: { rateLimit: { limit: 1, windowMs: 60_000 } } } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("a second call within the window is described as rate_limited with the wait in seconds", async () => {
    const client = harness.client();
    await signIn(harness, client);
    // Fixed windows are aligned to the clock: start at a window's beginning so both calls share one.
    harness.clock.alignToWindowStart(60_000);
    const provider = createProviderProxy({ basePath: `${harness.served.url}${BASE}`, fetch: cookieFetch(client) });
    const transport = new ProxyChatTransport({ provider });
    const send = () =>
      transport
        .sendMessages({
          trigger: "submit-message",
          chatId: "r1",
          messageId: undefined,
          messages: [userMessage("one")],
          abortSignal: undefined,
          ...chatRequestOptions({ model: "gpt-5.5", reasoningEffort: "medium", fast: false }),
        })
        .then(readChunks);
    expect(textOf(await send())).toBe('You said: "one".');
    const limited = errorOf(await send());
    expect(limited.code).toBe("rate_limited");
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.message).toMatch(/^Too many requests — try again in \d+ seconds?\.$/);
  });
});

describe("session api", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ handler: { loginRateLimit: { limit: 1, windowMs: 60_000 } } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("login → pending, approve → authenticated, logout → unauthenticated; a new login over the limit → 429", async () => {
    const client = harness.client();
    const api = createSessionApi({ basePath: `${harness.served.url}${BASE}`, fetch: cookieFetch(client) });
    harness.clock.alignToWindowStart(60_000);
    expect((await api.getSession()).status).toBe("unauthenticated");

    const pending = await api.login();
    expect(pending).toMatchObject({ status: "pending", verificationUrl: harness.mock.verificationUrl, interval: 5 });
    expect(pending.expiresAt).toBeGreaterThan(Date.now());
    expect((await api.login()).userCode).toBe(pending.userCode); // a pending code is reused
    expect(harness.mock.approve(pending.userCode!)).toBe(true);

    const done = await api.status();
    expect(done).toMatchObject({ status: "authenticated", user: { email: "demo@example.com", plan: "plus" } });
    expect((await api.logout()).status).toBe("unauthenticated");
    expect((await api.getSession()).status).toBe("unauthenticated");

    const error = await api.login().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderProxyError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited" });
    expect((error as ProviderProxyError).retryAfterSeconds).toBeGreaterThan(0);
  });
});

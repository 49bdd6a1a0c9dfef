/**
 * Shared set-up of the agent-voice tests: the real mock upstream, the handler over real HTTP with
 * `realtime.agentVoice` pointing at the fake app-server, an NDJSON event reader, and the checks
 * every test ends with (no process left, every message valid against the real binary's schema).
 */
import { afterEach, beforeAll, expect } from "vitest";
import { referenceConfirmTool, referenceTools } from "@/lib/agent-voice/tools";
import type { AgentVoiceOptions, ConfirmTool } from "@/lib/agent-voice/types";
import type { ProviderHandlerOptions } from "@/lib/server/options";
import type { MockUpstream, MockUpstreamOptions } from "@/mock-upstream/server";
import { createFakeAppServer, NODE_MEMORY_MB, type FakeAppServer, type FakeScript } from "@/test-support/fake-app-server/control";
import { loadProtocolValidator, type ProtocolValidator } from "@/test-support/fake-app-server/protocol-schema";
import { findLeakedTokens, signIn, startHarness, type Harness, type TestClient } from "./harness";

export const OFFER_SDP = "v=0\r\no=- 4611 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";

export interface AgentHarness extends Harness {
  fake: FakeAppServer;
  signedIn(): Promise<TestClient>;
  startLive(client: TestClient, session?: Record<string, unknown>): Promise<{ sessionId: string; sdp: string }>;
  /** Every pid the fake saw spawned. */
  pids(): Promise<number[]>;
  /** The pid of the process serving the n-th realtime start. */
  livePid(n?: number): Promise<number>;
  finish(validator: ProtocolValidator): Promise<void>;
}

export async function startAgentHarness(
  options: {
    script?: FakeScript;
    agentVoice?: Partial<AgentVoiceOptions>;
    confirmTool?: ConfirmTool | null;
    handler?: ProviderHandlerOptions;
    mock?: MockUpstreamOptions;
    /** Another harness's mock: several instances against one provider. */
    sharedMock?: MockUpstream;
  } = {},
): Promise<AgentHarness> {
  const fake = await createFakeAppServer(options.script);
  const harness = await startHarness({
    ...(options.mock ? { mock: options.mock } : {}),
    ...(options.sharedMock ? { sharedMock: options.sharedMock } : {}),
    handler: {
      ...options.handler,
      realtime: {
        ...options.handler?.realtime,
        // sandbox "off": the fake shares its control folder with the test (it writes its log
        // there) and reports its own pid, neither of which it could inside the bwrap sandbox. The
        // sandbox is tested on its own (lib/agent-voice/sandbox/, app-server-sandbox.test.ts) and
        // around the real codex (tests/codex-real/).
        agentVoice: {
          command: fake.command,
          tools: referenceTools,
          keepWarmProcess: false,
          sandbox: "off",
          limits: { memoryMb: NODE_MEMORY_MB },
          ...options.agentVoice,
        },
      },
      ...(options.confirmTool === null ? {} : { confirmTool: options.confirmTool ?? referenceConfirmTool }),
    },
  });
  async function pids() {
    return (await fake.log()).filter((entry) => entry.type === "spawned").map((entry) => entry.pid);
  }
  return {
    ...harness,
    fake,
    async signedIn() {
      const client = harness.client();
      await signIn(harness, client);
      return client;
    },
    async startLive(client, session = { voice: "cove" }) {
      const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session });
      if (reply.status !== 201) throw new Error(`start failed: ${reply.status} ${reply.text}`);
      return reply.json<{ sessionId: string; sdp: string }>();
    },
    pids,
    async livePid(n = 0) {
      const log = await fake.log();
      const starts = log.filter((entry) => entry.dir === "in" && entry.message?.method === "thread/realtime/start");
      const pid = starts[n]?.pid;
      if (pid === undefined) throw new Error(`no realtime start #${n}`);
      return pid;
    },
    async finish(validator) {
      try {
        // A test ends with its live sessions closed: a signed-in process still running is an orphan,
        // and so is any idle one beyond the one spare.
        const log = await fake.log();
        const alive = (await pids()).filter(isAlive);
        const signedIn = alive.filter((pid) => log.some((e) => e.pid === pid && e.message?.method === "account/login/start"));
        const idle = alive.filter((pid) => !signedIn.includes(pid));
        // Then the handler's close() must end the rest (the spare).
        await harness.provider.close();
        await harness.close();
        const survivors = (await pids()).filter(isAlive);
        for (const pid of survivors) process.kill(-pid, "SIGKILL");
        if (signedIn.length > 0) throw new Error(`live processes ${signedIn.join(", ")} were left running`);
        if (idle.length > 1) throw new Error(`more than one spare process: ${idle.join(", ")}`);
        if (survivors.length > 0) throw new Error(`close() left processes ${survivors.join(", ")} running`);
        expect(validator.check(await fake.log())).toEqual([]);
      } finally {
        await fake.remove();
      }
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/** Waits until the process (and its group) is gone. */
export async function waitForExit(pid: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still running`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface LiveEventLine {
  seq: number;
  type: string;
  [field: string]: unknown;
}

/** Reads an events stream line by line; `next` waits for the first event matching a predicate. */
export async function openEvents(client: Pick<TestClient, "raw">, sessionId: string, after?: number) {
  const controller = new AbortController();
  const query = after === undefined ? "" : `?after=${after}`;
  const response = await client.raw("GET", `/realtime/app-server/${sessionId}/events${query}`, { signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const seen: LiveEventLine[] = [];
  let buffered = "";
  let ended = false;
  let cursor = 0;

  async function pull(): Promise<boolean> {
    if (ended) return false;
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    buffered += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      seen.push(JSON.parse(buffered.slice(0, newline)) as LiveEventLine);
      buffered = buffered.slice(newline + 1);
    }
    return true;
  }

  return {
    response,
    seen,
    /** The next event (after the last one returned) matching `match`. */
    async next(match: (event: LiveEventLine) => boolean = () => true): Promise<LiveEventLine> {
      for (;;) {
        while (cursor < seen.length) {
          const event = seen[cursor++]!;
          if (match(event)) return event;
        }
        if (!(await pull())) throw new Error(`the event stream ended; seen: ${JSON.stringify(seen.map((e) => e.type))}`);
      }
    },
    /** Reads to the end of the stream (the session closed). */
    async rest(): Promise<LiveEventLine[]> {
      while (await pull());
      return seen;
    },
    close() {
      controller.abort();
      reader.cancel().catch(() => undefined);
    },
  };
}

/**
 * Registers the checks every agent-voice test ends with: the test's harness (read through
 * `current`) leaked no token and left no process, and every message was valid against the real
 * binary's schema; then `clear` forgets it.
 */
export function finishAgentHarnessAfterEach(current: () => AgentHarness | undefined, clear: () => void): void {
  let validator: ProtocolValidator;
  beforeAll(() => {
    validator = loadProtocolValidator();
  });
  afterEach(async () => {
    const h = current();
    if (h) expect(findLeakedTokens(h.evidence)).toEqual([]);
    await h?.finish(validator);
    clear();
  });
}

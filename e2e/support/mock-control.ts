import { z } from "zod";
import type { MockFault } from "../../mock-upstream/types";
import { MOCK_UPSTREAM_URL } from "./servers";

/** The mock's fault names (docs/mock-upstream.md). */

interface FaultRule {
  fault: MockFault;
  accountId?: string;
  times?: number;
  delayMs?: number;
}

export interface MockAccount {
  accountId: string;
  email: string;
  plan: string;
  userId: string;
}

const recordedRequestSchema = z
  .object({
    id: z.number(),
    method: z.string(),
    path: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
    receivedAt: z.number(),
    aborted: z.boolean(),
    completed: z.boolean(),
  })
  .loose();

export type RecordedRequest = z.infer<typeof recordedRequestSchema>;

const requestListSchema = z.union([
  z.array(recordedRequestSchema),
  z.object({ requests: z.array(recordedRequestSchema) }).transform((reply) => reply.requests),
]);

const RESPONSES_PATH = "/backend-api/codex/responses";

const voiceCallSchema = z
  .object({
    id: z.string(),
    transport: z.enum(["codex", "wm", "vp", "vps"]),
    accountId: z.string(),
    session: z.unknown(),
    state: z.enum(["new", "connected", "closed"]),
    inboundPackets: z.number(),
    inboundLevel: z.number(),
    outboundPackets: z.number(),
    speaking: z.boolean(),
    dataChannelMessages: z.array(z.unknown()),
  })
  .loose();

/** A voice call as the mock's WebRTC peer sees it. */
export type VoiceCall = z.infer<typeof voiceCallSchema>;

/** Drives the mock upstream's control API (`/__mock/*`) over HTTP, as a separate process must. */
export class MockControl {
  constructor(private readonly baseUrl: string = MOCK_UPSTREAM_URL) {}

  /** Approve a device code for the given account, as if its owner had approved it on the provider's page. */
  async approve(userCode: string, account: Partial<MockAccount>): Promise<void> {
    await this.post("/__mock/approve", { userCode, account });
  }

  async deny(userCode: string): Promise<void> {
    await this.post("/__mock/deny", { userCode });
  }

  /** Make a device code expire now; the app's next poll sees `expired_token`. */
  async expire(userCode: string): Promise<void> {
    await this.post("/__mock/expire", { userCode });
  }

  /** Arm a fault. Always scope it with `accountId` in parallel tests so other tests are untouched. */
  async addFault(rule: FaultRule): Promise<void> {
    await this.post("/__mock/faults", rule);
  }

  async setOptions(patch: Record<string, unknown>): Promise<void> {
    await this.post("/__mock/options", patch);
  }

  /** Clears everything the mock holds; only for a serial setup step, never from a parallel test. */
  async reset(): Promise<void> {
    await this.post("/__mock/reset", {});
  }

  async requests(path: string): Promise<RecordedRequest[]> {
    const response = await fetch(`${this.baseUrl}/__mock/requests?path=${encodeURIComponent(path)}`);
    if (!response.ok) throw new Error(`mock control GET /__mock/requests answered ${response.status}`);
    return requestListSchema.parse(await response.json());
  }

  /** The /responses requests the app made on behalf of one account (identified by ChatGPT-Account-ID). */
  async responsesRequestsOf(accountId: string): Promise<RecordedRequest[]> {
    const all = await this.requests(RESPONSES_PATH);
    return all.filter((request) => request.headers["chatgpt-account-id"] === accountId);
  }

  /** The voice calls the mock answered for one account (live and ended), oldest first. */
  async voiceCalls(accountId: string): Promise<VoiceCall[]> {
    const response = await fetch(`${this.baseUrl}/__mock/voice-calls?accountId=${encodeURIComponent(accountId)}`);
    if (!response.ok) throw new Error(`mock control GET /__mock/voice-calls answered ${response.status}`);
    return z.object({ calls: z.array(voiceCallSchema) }).parse(await response.json()).calls;
  }

  /**
   * Resolves with the account's newest voice call once `predicate` holds for it, e.g.
   * `waitForVoiceCall(id, (c) => c.state === "connected")` or `(c) => c.inboundLevel < 0.01` for mute.
   * Re-reads the mock every 100 ms (the state lives in another process); rejects after `timeoutMs`.
   */
  async waitForVoiceCall(accountId: string, predicate: (call: VoiceCall) => boolean, timeoutMs = 10_000): Promise<VoiceCall> {
    const deadline = Date.now() + timeoutMs;
    let last: VoiceCall | undefined;
    for (;;) {
      last = (await this.voiceCalls(accountId)).at(-1);
      if (last && predicate(last)) return last;
      if (Date.now() > deadline) {
        throw new Error(`mock control: voice call of ${accountId} did not reach the expected state within ${timeoutMs} ms (last: ${JSON.stringify(last && { state: last.state, inboundPackets: last.inboundPackets, inboundLevel: last.inboundLevel })})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async post(path: string, body: unknown): Promise<void> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      throw new Error(`mock control POST ${path} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    }
  }
}

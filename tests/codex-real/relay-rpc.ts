/**
 * Test support: codex's JSON-RPC over a session relay channel, as one server instance would speak
 * it. Request ids carry the instance's prefix (`a-1`, `b-1`): another instance attaching from an
 * earlier seq replays answers to ids that are not its own, and must not take them for its own.
 */
import { openRelayChannel, type RelayChannel } from "@/lib/agent-voice/relay/relay-client";
import type { RelayAddress } from "@/lib/agent-voice/relay/relay-http";

interface RelayMessage {
  seq: number;
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export class RelayRpc {
  readonly channel: RelayChannel;
  /** Every message codex wrote that this client received, with its seq. */
  readonly messages: RelayMessage[] = [];
  private nextId = 1;
  private readonly watchers = new Set<{ predicate: (m: RelayMessage) => boolean; resolve: (m: RelayMessage) => void }>();

  constructor(options: { address: RelayAddress; token: string; idPrefix: string; after?: number; epoch?: string; follow?: boolean }) {
    this.idPrefix = options.idPrefix;
    this.channel = openRelayChannel({
      address: options.address,
      token: options.token,
      ...(options.after === undefined ? {} : { after: options.after }),
      ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
      ...(options.follow === false ? {} : { onLine: ({ seq, line }) => this.receive({ seq, ...(JSON.parse(line) as Omit<RelayMessage, "seq">) }) }),
    });
  }

  private readonly idPrefix: string;

  /** Sends a request; resolves with its result (throws on an error answer). */
  async call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `${this.idPrefix}-${this.nextId++}`;
    const answered = this.waitFor((m) => m.id === id && m.method === undefined);
    await this.channel.send(JSON.stringify({ id, method, params }));
    const reply = await answered;
    if (reply.error) throw new Error(`${method} failed: ${reply.error.code} ${reply.error.message}`);
    return reply.result ?? {};
  }

  /** Sends a request without waiting for its answer (a client that does not follow). */
  async send(message: Record<string, unknown>, inputId?: string): Promise<void> {
    await this.channel.send(JSON.stringify(message), inputId);
  }

  async notify(method: string): Promise<void> {
    await this.channel.send(JSON.stringify({ method }));
  }

  /** Resolves on an existing or future message. */
  waitFor(predicate: (m: RelayMessage) => boolean, timeoutMs = 20_000): Promise<RelayMessage> {
    const existing = this.messages.find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const watcher = {
        predicate,
        resolve: (m: RelayMessage) => {
          clearTimeout(timer);
          this.watchers.delete(watcher);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.watchers.delete(watcher);
        reject(new Error(`no matching message within ${timeoutMs} ms; last: ${this.messages.slice(-5).map((m) => m.method ?? `reply ${m.id}`).join(", ")}`));
      }, timeoutMs);
      this.watchers.add(watcher);
    });
  }

  waitForNotification(method: string, timeoutMs?: number): Promise<RelayMessage> {
    return this.waitFor((m) => m.method === method && m.id === undefined, timeoutMs);
  }

  private receive(message: RelayMessage): void {
    this.messages.push(message);
    for (const watcher of [...this.watchers]) if (watcher.predicate(message)) watcher.resolve(message);
  }
}

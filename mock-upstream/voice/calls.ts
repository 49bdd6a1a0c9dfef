import { randomBytes } from "node:crypto";
import { VoicePeer, type VoiceCallInfo, type VoicePeerOptions } from "./peer";

type Waiter = { predicate: (call: VoiceCallInfo) => boolean; resolve: (call: VoiceCallInfo) => void };

const DEFAULT_WAIT_MS = 10_000;

/** Every voice call the mock answered, live or ended, and whoever waits for one to change. */
export class VoiceCalls {
  private peers = new Map<string, VoicePeer>();
  private waiters = new Set<Waiter>();

  create(options: Omit<VoicePeerOptions, "id" | "onChange">): VoicePeer {
    const id = `rtc_${randomBytes(12).toString("hex")}`;
    const peer: VoicePeer = new VoicePeer({ ...options, id, onChange: () => this.notify(peer) });
    this.peers.set(id, peer);
    this.notify(peer);
    return peer;
  }

  peer(id: string): VoicePeer | undefined {
    return this.peers.get(id);
  }

  list(filter: { accountId?: string } = {}): VoiceCallInfo[] {
    return [...this.peers.values()]
      .map((peer) => peer.snapshot())
      .filter((call) => filter.accountId === undefined || call.accountId === filter.accountId);
  }

  /** Resolves with the first call (existing or future state) that matches. */
  waitFor(predicate: (call: VoiceCallInfo) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<VoiceCallInfo> {
    const existing = this.list().find(predicate);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`mock upstream: no matching voice call within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        resolve: (call) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(call);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /** Peers still holding sockets (not closed). */
  openCount(): number {
    return [...this.peers.values()].filter((peer) => peer.info.state !== "closed").length;
  }

  /** Close every peer and forget them all. */
  clear(): void {
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
  }

  private notify(peer: VoicePeer): void {
    if (this.waiters.size === 0) return;
    const snapshot = peer.snapshot();
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate(structuredClone(snapshot))) waiter.resolve(snapshot);
    }
  }
}

import type { RecordedRequest } from "./types";

type Waiter = {
  predicate: (request: RecordedRequest) => boolean;
  resolve: (request: RecordedRequest) => void;
};

const DEFAULT_WAIT_MS = 10_000;

/** Keeps every request the mock received and wakes up whoever waits for one. */
export class RequestRecorder {
  private entries: RecordedRequest[] = [];
  private nextId = 1;
  private waiters = new Set<Waiter>();

  record(entry: Omit<RecordedRequest, "id" | "aborted" | "completed" | "status">): RecordedRequest {
    const recorded: RecordedRequest = { ...entry, id: this.nextId++, aborted: false, completed: false, status: 0 };
    this.entries.push(recorded);
    this.notify(recorded);
    return recorded;
  }

  /** Apply a change to a recorded entry, then wake waiters whose predicate now matches. */
  update(entry: RecordedRequest, patch: Partial<Pick<RecordedRequest, "aborted" | "completed" | "status" | "dialect">>): void {
    Object.assign(entry, patch);
    this.notify(entry);
  }

  list(filter?: { path?: string }): RecordedRequest[] {
    const matching = filter?.path === undefined ? this.entries : this.entries.filter((e) => e.path === filter.path);
    return matching.map((e) => structuredClone(e));
  }

  waitFor(predicate: (request: RecordedRequest) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest> {
    const existing = this.entries.find((e) => predicate(structuredClone(e)));
    if (existing) return Promise.resolve(structuredClone(existing));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`mock upstream: no matching request within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        resolve: (request) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(request);
        },
      };
      this.waiters.add(waiter);
    });
  }

  clear(): void {
    this.entries = [];
  }

  private notify(entry: RecordedRequest): void {
    for (const waiter of [...this.waiters]) {
      const snapshot = structuredClone(entry);
      if (waiter.predicate(snapshot)) waiter.resolve(snapshot);
    }
  }
}

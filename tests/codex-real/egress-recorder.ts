/**
 * Test support: the app's own egress proxy (lib/agent-voice/sandbox/egress-proxy.ts) on
 * 127.0.0.1, allowing only the hosts given (the mock), recording what it forwards and refuses.
 * `env` points every proxy variable at it and leaves NO_PROXY unset, as the sandbox does, so a
 * codex run outside the sandbox sends its connections the same way; any host not allowed lands
 * in `refused` and gets a 403, and a test fails on any entry there.
 */
import type { AddressInfo } from "node:net";
import { parseAllowEntry } from "@/lib/agent-voice/sandbox/egress-allow-list";
import { createEgressProxy } from "@/lib/agent-voice/sandbox/egress-proxy";

export interface EgressRecorder {
  port: number;
  forwarded: string[];
  refused: string[];
  env: Record<string, string>;
  /** Resolves with the first refused request (existing or future). */
  nextRefused(): Promise<string>;
  close(): Promise<void>;
}

export async function startEgressRecorder(allow: string[]): Promise<EgressRecorder> {
  const forwarded: string[] = [];
  const refused: string[] = [];
  let wake: ((request: string) => void) | undefined;
  const proxy = createEgressProxy({
    allow: allow.map(parseAllowEntry),
    onForwarded: (request) => forwarded.push(request),
    onRefused: (request) => {
      refused.push(request);
      wake?.(request);
    },
  });
  await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
  const port = (proxy.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    forwarded,
    refused,
    env: Object.fromEntries(["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"].map((name) => [name, url])),
    nextRefused: () => (refused.length > 0 ? Promise.resolve(refused[0]!) : new Promise((resolve) => (wake = resolve))),
    close: () => proxy.close(),
  };
}

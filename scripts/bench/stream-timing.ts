import { performance } from "node:perf_hooks";

export interface StreamTiming {
  /** Milliseconds from sending the request to the first body byte. */
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

/** Sends one request and reads its streamed body to the end, timing the first byte and the whole. */
export async function timeStream(url: string, init: RequestInit): Promise<StreamTiming> {
  const startedAt = performance.now();
  const response = await fetch(url, init);
  if (!response.ok || !response.body) {
    throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  }
  const reader = response.body.getReader();
  let ttfbMs = Number.NaN;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (Number.isNaN(ttfbMs)) ttfbMs = performance.now() - startedAt;
    bytes += value.byteLength;
  }
  return { ttfbMs, totalMs: performance.now() - startedAt, bytes };
}

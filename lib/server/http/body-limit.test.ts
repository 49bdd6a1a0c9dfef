import { describe, expect, it } from "vitest";
import { readBodyWithLimit } from "./body-limit";
import { readResponsesBody } from "../responses/body";

function streamOf(chunks: number, size: number, onPull?: () => void): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      onPull?.();
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(size).fill(97));
    },
  });
}

function request(body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}): Request {
  return new Request("http://h/", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("readBodyWithLimit", () => {
  it("returns a body within the limit", async () => {
    const result = await readBodyWithLimit(request("hello"), 5);
    expect(result.ok && new TextDecoder().decode(result.bytes)).toBe("hello");
  });

  it("refuses a declared Content-Length over the limit without reading the stream", async () => {
    let pulls = 0;
    const result = await readBodyWithLimit(request(streamOf(10, 100, () => (pulls += 1)), { "content-length": "1000" }), 999);
    expect(result).toEqual({ ok: false, reason: "too_large" });
    expect(pulls).toBeLessThanOrEqual(1);
  });

  it("counts the stream when Content-Length lies, and stops reading at the limit", async () => {
    let pulls = 0;
    const lying = request(streamOf(1000, 100, () => (pulls += 1)), { "content-length": "10" });
    expect(lying.headers.get("content-length")).toBe("10");
    expect(await readBodyWithLimit(lying, 450)).toEqual({ ok: false, reason: "too_large" });
    expect(pulls).toBeLessThan(10);
  });

  it("counts a stream without Content-Length", async () => {
    expect(await readBodyWithLimit(request(streamOf(5, 100)), 499)).toEqual({ ok: false, reason: "too_large" });
    const exact = await readBodyWithLimit(request(streamOf(5, 100)), 500);
    expect(exact.ok && exact.bytes.byteLength).toBe(500);
  });

  it("accepts a request without a body", async () => {
    const result = await readBodyWithLimit(new Request("http://h/", { method: "POST" }), 1);
    expect(result.ok && result.bytes.byteLength).toBe(0);
  });
});

describe("a body that breaks off mid-upload", () => {
  const breaking = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10).fill(97));
        controller.error(new TypeError("the client went away"));
      },
    });

  it("is reported as unreadable, not thrown", async () => {
    expect(await readBodyWithLimit(request(breaking()), 1000)).toEqual({ ok: false, reason: "unreadable" });
  });

  it("becomes 400 invalid_responses_request on /responses (499 when the client aborted)", async () => {
    const broken = await readResponsesBody(request(breaking()), 1000);
    expect(broken.ok).toBe(false);
    if (broken.ok) return;
    expect(broken.response.status).toBe(400);
    expect(await broken.response.json()).toMatchObject({ error: "invalid_responses_request" });

    const controller = new AbortController();
    controller.abort();
    const aborted = new Request("http://h/", { method: "POST", body: breaking(), duplex: "half", signal: controller.signal } as RequestInit);
    const gone = await readResponsesBody(aborted, 1000);
    expect(gone.ok ? 0 : gone.response.status).toBe(499);
  });
});

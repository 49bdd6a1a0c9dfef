import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ParsedBody {
  raw: string;
  /** Parsed JSON, form fields, text, or undefined when empty. */
  value: unknown;
  kind: "json" | "form" | "multipart" | "text" | "empty" | "invalid_json";
}

export function readRawBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("body too large"));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export function mediaType(request: IncomingMessage): string {
  return (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The boundary parameter of a multipart/form-data Content-Type, if any. */
export function multipartBoundary(request: IncomingMessage): string | undefined {
  const match = /;\s*boundary="?([^";]+)"?/i.exec(request.headers["content-type"] ?? "");
  return match?.[1];
}

/** Text fields of a multipart/form-data body (file parts are kept as text too). */
function parseMultipart(raw: string, boundary: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of raw.split(`--${boundary}`)) {
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd < 0) continue;
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, headerEnd))?.[1];
    if (name === undefined) continue;
    fields[name] = part.slice(headerEnd + 4).replace(/\r\n$/, "");
  }
  return fields;
}

export function parseBody(raw: string, contentType: string, boundary?: string): ParsedBody {
  if (raw.length === 0) return { raw, value: undefined, kind: "empty" };
  if (contentType === "multipart/form-data" && boundary) {
    return { raw, value: parseMultipart(raw, boundary), kind: "multipart" };
  }
  if (contentType === "application/x-www-form-urlencoded") {
    return { raw, value: Object.fromEntries(new URLSearchParams(raw)), kind: "form" };
  }
  if (contentType === "application/json" || contentType.endsWith("+json")) {
    try {
      return { raw, value: JSON.parse(raw) as unknown, kind: "json" };
    } catch {
      return { raw, value: raw, kind: "invalid_json" };
    }
  }
  return { raw, value: raw, kind: "text" };
}

export function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  response.end(text);
}

export function sendText(
  response: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  response.end(text);
}

/** Resolves after `ms`, or early (false) when the client goes away. */
export function delayUnlessClosed(response: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (response.destroyed || response.writableEnded) return resolve(false);
    let cancelWait = () => {};
    const onClose = () => {
      cancelWait();
      resolve(false);
    };
    const onReady = () => {
      response.off("close", onClose);
      resolve(true);
    };
    response.once("close", onClose);
    if (ms > 0) {
      const timer = setTimeout(onReady, ms);
      cancelWait = () => clearTimeout(timer);
    } else if (response.writableNeedDrain) {
      // No delay asked for: stream as fast as the client reads, waiting only for backpressure.
      response.once("drain", onReady);
      cancelWait = () => response.off("drain", onReady);
    } else {
      const immediate = setImmediate(onReady);
      cancelWait = () => clearImmediate(immediate);
    }
  });
}

/**
 * A model backend that misbehaves on purpose: it quotes the prompt in its errors, serves HTML with a
 * 200, and redirects to another origin. Nothing of it may reach the log, the browser or that origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockUpstream, type MockUpstream } from "@/mock-upstream/server";
import {
  createEvidence,
  findLeakedTokens,
  PROMPT_MARKER,
  responsesBody,
  signIn,
  startHarness,
  type Harness,
  type TestClient,
} from "./harness";

type Mode = "quote-json" | "quote-text" | "quote-credentials" | "html" | "redirect" | "stream";

const evidence = createEvidence();
let mock: MockUpstream;
let h: Harness;
let user: TestClient;
let mode: Mode = "stream";
let hostile: Server;
let elsewhere: Server;
const elsewhereRequests: { url: string; authorization: string | undefined; body: string }[] = [];

async function listen(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  mock = await startMockUpstream();
  elsewhere = await listen((req, res, body) => {
    elsewhereRequests.push({ url: req.url ?? "", authorization: req.headers.authorization, body });
    res.writeHead(200, { "content-type": "text/event-stream" }).end("data: [DONE]\n\n");
  });
  hostile = await listen((req, res, body) => {
    if (mode === "redirect") {
      res.writeHead(307, { location: `${urlOf(elsewhere)}${req.url}` }).end();
    } else if (req.url?.startsWith("/models")) {
      // The catalogue (read for each model's dialect, allow-list or not) is the only honest answer.
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ models: [{ slug: "gpt-5.5", visibility: "list" }] }));
    } else if (mode === "html") {
      res.writeHead(200, { "content-type": "text/html" }).end("<html><script>alert(document.cookie)</script></html>");
    } else if (mode === "quote-json") {
      const quoted = JSON.stringify({ error: { message: `Invalid input: ${body}`, type: "invalid_request_error", code: "invalid_value" } });
      res.writeHead(400, { "content-type": "application/json" }).end(quoted);
    } else if (mode === "quote-credentials") {
      const echoed = `Request refused: authorization ${req.headers.authorization}, account ${req.headers["chatgpt-account-id"]}.`;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: echoed, code: "bad_request" } }));
    } else if (mode === "quote-text") {
      res.writeHead(500, { "content-type": "text/plain" }).end(`internal failure while handling ${body}`);
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" }).end('event: response.completed\ndata: {"type":"response.completed"}\n\n');
    }
  });
  h = await startHarness({
    evidence,
    sharedMock: mock,
    handler: {
      upstream: { codexBaseUrl: urlOf(hostile) },
      responsesProxy: { allowedModels: ["gpt-5.5"], rateLimit: false },
    },
  });
  user = h.client();
  await signIn(h, user);
});
afterAll(async () => {
  await h?.close();
  await mock?.close();
  await Promise.all([hostile, elsewhere].map((server) => new Promise((resolve) => server?.close(resolve))));
});
beforeEach(() => {
  elsewhereRequests.length = 0;
});

describe("upstream text that quotes the prompt or a credential never brings it into the log", () => {
  it.each(["quote-json", "quote-text"] as const)("%s: the error is answered, the log line has status, code, type and a snippet without the prompt", async (which) => {
    mode = which;
    const logsBefore = evidence.logs.length;
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(which === "quote-json" ? 400 : 500);
    expect(reply.json()).toMatchObject({ error: "responses_request_failed" });
    expect(reply.text).not.toContain(PROMPT_MARKER);
    const lines = evidence.logs.slice(logsBefore);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).not.toContain(PROMPT_MARKER);
    if (which === "quote-json") {
      expect(lines[0]!.message).toMatch(/status=400 code=invalid_value type=invalid_request_error body="\{.*Invalid input: .*\[input\].*" request_id=[0-9a-f-]{36}$/);
    } else {
      expect(lines[0]!.message).toMatch(/status=500 body="internal failure while handling .*\[input\].*" request_id=[0-9a-f-]{36}$/);
    }
  });

  it("quote-credentials: the bearer token the error echoes is removed from the log line and the reply", async () => {
    mode = "quote-credentials";
    const logsBefore = evidence.logs.length;
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(400);
    const lines = evidence.logs.slice(logsBefore);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toContain("Request refused: authorization Bearer [redacted], account acct_demo.");
    expect(reply.json<{ detail: string }>().detail).toBe("Upstream answered 400: Request refused: authorization Bearer [redacted], account acct_demo.");
  });
});

describe("upstream replies are not trusted blindly", () => {
  it("refuses a 200 text/html reply instead of serving it on the app's origin", async () => {
    mode = "html";
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(502);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.json()).toMatchObject({ error: "responses_request_failed", status: 502 });
    expect(reply.text).not.toContain("<script>");
  });

  it("does not follow a redirect: the prompt and credentials never reach the other origin", async () => {
    mode = "redirect";
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(502);
    expect(reply.json()).toMatchObject({ error: "responses_request_failed", status: 502 });
    expect(elsewhereRequests).toEqual([]);
  });

  it("does not follow a redirect of a JSON call (/models) either", async () => {
    mode = "redirect";
    // Another account: its catalogue is not in the server's cache yet.
    const other = h.client();
    await signIn(h, other, { accountId: "acct_redirected", email: "redirected@example.com" });
    const reply = await other.get("/models");
    expect(reply.status).toBe(502);
    expect(reply.json()).toMatchObject({ models: [] });
    expect(elsewhereRequests).toEqual([]);
  });

  it("marks proxied streams nosniff too", async () => {
    mode = "stream";
    const reply = await user.post("/responses", responsesBody());
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

it("leaks no token and no prompt text", () => {
  expect(findLeakedTokens(evidence)).toEqual([]);
});

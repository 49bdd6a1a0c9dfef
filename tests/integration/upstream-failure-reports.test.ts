/**
 * What an upstream failure leaves behind, on /responses, /models and /realtime: one log line with
 * the status and a bounded snippet of the body, and a `detail` with the provider's words, both with
 * tokens removed and the request's own input text replaced by `[input]` (a provider error may quote
 * the prompt back).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { INPUT_MARKER } from "@/lib/upstream/redact";
import { TestBrowserPeer } from "@/mock-upstream/voice/test-browser-peer";
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

const evidence = createEvidence();
let h: Harness;
let peer: TestBrowserPeer;
let offer: string;
let logsBefore = 0;

beforeAll(async () => {
  h = await startHarness({ evidence, handler: { responsesProxy: { allowedModels: ["gpt-5.5"], rateLimit: false } } });
  peer = new TestBrowserPeer();
  offer = await peer.offer();
});
afterAll(async () => {
  await peer?.close();
  await h?.close();
});
beforeEach(() => {
  h.mock.clearFaults();
  logsBefore = evidence.logs.length;
});

async function signedIn(accountId: string): Promise<TestClient> {
  const client = h.client();
  await signIn(h, client, { accountId, email: `${accountId}@example.com` });
  return client;
}

/** The log lines written since the test began, without the request id every line ends with. */
const newLines = () => evidence.logs.slice(logsBefore).map((line) => line.message.replace(/ request_id=\S+$/, ""));

/** The `body="…"` part of a log line, decoded. */
function loggedSnippet(line: string): string {
  const quoted = / body=("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
  if (quoted === undefined) throw new Error(`no body snippet in: ${line}`);
  return JSON.parse(quoted) as string;
}

describe("/responses", () => {
  it.each([
    ["a one-line prompt", `hello there ${PROMPT_MARKER}`],
    ["a prompt with quotes and a new line (JSON-escaped in the error)", `my "first" question\nand ${PROMPT_MARKER} on line two`],
  ])("an error quoting %s is logged with status and snippet, the prompt replaced", async (_name, prompt) => {
    const user = await signedIn("acct_echo");
    h.mock.addFault({ fault: "input_echoed", accountId: "acct_echo" });
    const reply = await user.post("/responses", responsesBody(prompt));
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({
      error: "responses_request_failed",
      status: 400,
      detail: `Upstream answered 400: Invalid 'input[0].content[0].text': the text "${INPUT_MARKER}" could not be processed.`,
    });

    const lines = newLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\[login-with-chatgpt\] upstream \/responses failed: status=400 code=invalid_value type=invalid_request_error body="/,
    );
    expect(loggedSnippet(lines[0]!)).toBe(
      JSON.stringify({
        error: {
          message: `Invalid 'input[0].content[0].text': the text "${INPUT_MARKER}" could not be processed.`,
          type: "invalid_request_error",
          param: "input",
          code: "invalid_value",
        },
      }),
    );
    for (const text of [reply.text, ...lines]) {
      expect(text).not.toContain(PROMPT_MARKER);
      expect(text).not.toContain("question");
    }
  });

  it("a server error is logged with its body snippet", async () => {
    const user = await signedIn("acct_responses_5xx");
    // The catalogue (read for the model's dialect) is cached first, so the fault hits /responses.
    expect((await user.get("/models")).status).toBe(200);
    logsBefore = evidence.logs.length;
    h.mock.addFault({ fault: "server_error", accountId: "acct_responses_5xx" });
    expect((await user.post("/responses", responsesBody())).status).toBe(500);
    const lines = newLines();
    expect(lines).toHaveLength(1);
    expect(loggedSnippet(lines[0]!)).toContain('"message":"An error occurred while processing your request. Please try again."');
  });
});

describe("/models", () => {
  it("a failed list is logged with its status and body snippet", async () => {
    const user = await signedIn("acct_models_5xx");
    h.mock.addFault({ fault: "server_error", accountId: "acct_models_5xx" });
    const reply = await user.get("/models");
    expect(reply.status).toBe(500);
    const lines = newLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[login-with-chatgpt\] upstream \/models failed: models_request_failed status=500 body="/);
    expect(JSON.parse(loggedSnippet(lines[0]!))).toEqual({
      error: {
        message: "An error occurred while processing your request. Please try again.",
        type: "server_error",
        code: "internal_error",
        param: null,
      },
    });
  });
});

describe("/realtime", () => {
  it("a refused session field: the provider's words reach `detail` and the log line, the instructions replaced", async () => {
    const user = await signedIn("acct_voice_refused");
    h.mock.addFault({ fault: "realtime_session_refused", accountId: "acct_voice_refused" });
    const instructions = `Speak like a pirate and mention ${PROMPT_MARKER} twice`;
    const reply = await user.post("/realtime", { sdp: offer, session: { instructions } });
    expect(reply.status).toBe(400);
    const words = `Unsupported session field "instructions": this voice no longer accepts it (got "${INPUT_MARKER}").`;
    expect(reply.json()).toEqual({
      error: "realtime_request_failed",
      status: 400,
      detail: `The provider rejected the voice call (HTTP 400). The provider said: ${words}`,
    });

    const lines = newLines();
    expect(lines).toEqual([`[login-with-chatgpt] upstream /realtime failed: transport=codex status=400 upstream=400 body=${JSON.stringify(words)}`]);
    for (const text of [reply.text, ...lines]) {
      expect(text).not.toContain(PROMPT_MARKER);
      expect(text).not.toContain("pirate");
    }
  });

  it("the backend refuses the voice model (realtime_model_refused): its words reach `detail` and the log line", async () => {
    const user = await signedIn("acct_voice_model_refused");
    h.mock.addFault({ fault: "realtime_model_refused", accountId: "acct_voice_model_refused" });
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(400);
    const words = "Field `session.model` is not allowed for this Codex realtime session";
    expect(reply.json()).toEqual({
      error: "realtime_request_failed",
      status: 400,
      detail: `The provider rejected the voice call (HTTP 400). The provider said: ${words}`,
    });
    expect(newLines()).toEqual([
      `[login-with-chatgpt] upstream /realtime failed: transport=codex status=400 upstream=400 body=${JSON.stringify(JSON.stringify({ detail: words }))}`,
    ]);
  });

  it("a server error: `detail` carries the provider's message after our sentence, bounded", async () => {
    const user = await signedIn("acct_voice_5xx");
    h.mock.addFault({ fault: "server_error", accountId: "acct_voice_5xx" });
    const reply = await user.post("/realtime", { sdp: offer });
    expect(reply.status).toBe(500);
    const { detail } = reply.json<{ detail: string }>();
    expect(detail).toBe(
      "The provider's voice service failed (HTTP 500, code internal_error). Try again shortly. " +
        "The provider said: An error occurred while processing your request. Please try again.",
    );
    const lines = newLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[login-with-chatgpt\] upstream \/realtime failed: transport=codex status=500 upstream=500 code=internal_error body="/);
  });
});

it("leaks no token and no prompt text", () => {
  expect(evidence.issuedTokens.size).toBeGreaterThan(0);
  expect(findLeakedTokens(evidence)).toEqual([]);
});

import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  INPUT_MARKER,
  MIN_INPUT_RUN_CHARS,
  redactInputRuns,
  redactSecrets,
  SECRET_MARKER,
  SNIPPET_MAX_CHARS,
  upstreamSnippet,
} from "./redact";

const random = (bytes: number) => randomBytes(bytes).toString("base64url");
const jwt = () => `eyJ${random(12)}.eyJ${random(40)}.${random(32)}`;

describe("redactSecrets", () => {
  it.each([
    ["a JWT", () => jwt()],
    ["a JWT missing its signature", () => `eyJhbGciOi${random(8)}.secret`],
    ["an OpenAI API key", () => `sk-proj-${random(30)}`],
    ["a short sk- key", () => `sk-${random(9)}`],
    ["an app key", () => `oaiapp-${random(20)}`],
    ["a refresh token", () => `rt_${random(32)}`],
    ["a long base64 run", () => random(30)],
    ["a long hex run", () => randomBytes(20).toString("hex")],
    ["a long run of letters only", () => "Q".repeat(20) + "wertyuiopasdfghjklzxcv"],
  ])("removes %s", (_name, make) => {
    const secret = make();
    const redacted = redactSecrets(`before ${secret} after`);
    expect(redacted).toBe(`before ${SECRET_MARKER} after`);
  });

  it("keeps the scheme of an Authorization value and removes the credential, whatever its shape", () => {
    expect(redactSecrets("sent Authorization: Bearer abc.def; rest")).toBe(`sent Authorization: Bearer ${SECRET_MARKER}; rest`);
    expect(redactSecrets("bearer x")).toBe(`bearer ${SECRET_MARKER}`);
    expect(redactSecrets("Invalid bearer token.")).toBe("Invalid bearer token.");
  });

  it("removes the value of a secret-named field, short or long, quoted or not", () => {
    expect(redactSecrets('{"refresh_token":"abc","x":1}')).toBe(`{"refresh_token":"${SECRET_MARKER}","x":1}`);
    expect(redactSecrets("access_token=shorty&next=1")).toBe(`access_token=${SECRET_MARKER}&next=1`);
    expect(redactSecrets("'client_secret': 'p4ss'")).toBe(`'client_secret': '${SECRET_MARKER}'`);
  });

  it("keeps what the person deploying needs: words, identifiers, codes, numbers, model slugs", () => {
    const text =
      'Unsupported parameter: session.voice_mode. {"error":{"code":"deviceauth_authorization_pending","type":"usage_limit_reached"}} ' +
      "The 'gpt-5.6-terra-2026-11-01' model is not supported; status 429, resets_in_seconds 8220, ray 8e2f3c4d5a6b7c8d.";
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("redactInputRuns", () => {
  const prompt = "Please summarise my notes about the Lisbon trip, zq-prompt-marker-3141, and the budget";

  it(`replaces a quoted run of ${MIN_INPUT_RUN_CHARS}+ characters of the input with one marker`, () => {
    const body = `Invalid input: "${prompt}" is not allowed.`;
    expect(redactInputRuns(body, [prompt])).toBe(`Invalid input: "${INPUT_MARKER}" is not allowed.`);
  });

  it("catches a quoted substring of the input, not only the whole of it", () => {
    const body = "could not parse 'notes about the Lisbon trip, zq-prompt-marker' near column 12";
    expect(redactInputRuns(body, [prompt])).toBe(`could not parse '${INPUT_MARKER}' near column 12`);
  });

  it("catches the input JSON-escaped once or twice, and with non-ASCII as \\u escapes", () => {
    const tricky = 'He said "stop" at line 1\nthen left for Zürich — zq-prompt-marker-3141';
    const once = JSON.stringify({ error: { message: `bad: ${tricky}` } });
    const twice = JSON.stringify({ error: { message: `bad: ${JSON.stringify({ input: tricky })}` } });
    const ascii = once.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    for (const body of [once, twice, ascii]) {
      const redacted = redactInputRuns(body, [tricky]);
      expect(redacted).not.toContain("zq-prompt-marker");
      expect(redacted).not.toContain("stop");
      expect(redacted).toContain(INPUT_MARKER);
    }
  });

  it("matches across different whitespace (a plain-text echo of a multi-line prompt)", () => {
    const multiLine = "first line of the secret plan\n\n   second line zq-prompt-marker-3141";
    const body = "failure while handling first line of the secret plan second line zq-prompt-marker-3141 (trace 7)";
    expect(redactInputRuns(body, [multiLine])).toBe(`failure while handling ${INPUT_MARKER} (trace 7)`);
  });

  it(`leaves runs shorter than ${MIN_INPUT_RUN_CHARS} characters and text the input does not contain`, () => {
    const body = `The model is not supported.${"notes about the Lisbon".slice(0, MIN_INPUT_RUN_CHARS - 1)}`;
    expect(redactInputRuns(body, [prompt])).toBe(body);
    expect(redactInputRuns(body, [])).toBe(body);
  });

  it("finds runs from any of several inputs and keeps the text between them", () => {
    const body = "field a: the first secret text; field b: another private line here";
    expect(redactInputRuns(body, ["the first secret text", "another private line here"])).toBe(
      `field a: ${INPUT_MARKER}; field b: ${INPUT_MARKER}`,
    );
  });

  it("stays fast with a 4 MB input", () => {
    const huge = `${"lorem ipsum dolor sit amet ".repeat(150_000)}zq-prompt-marker-3141 the end`;
    const started = performance.now();
    const redacted = redactInputRuns("echo:sit amet zq-prompt-marker-3141 the end!", [huge]);
    expect(redacted).toBe(`echo:${INPUT_MARKER}!`);
    // Linear: a search per window of the text would take minutes here.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("upstreamSnippet", () => {
  it("is undefined for an empty body and one line otherwise", () => {
    expect(upstreamSnippet("")).toBeUndefined();
    expect(upstreamSnippet(undefined)).toBeUndefined();
    expect(upstreamSnippet("  a\n\tb  ")).toBe("a b");
  });

  it(`is at most ${SNIPPET_MAX_CHARS} characters plus an ellipsis`, () => {
    const snippet = upstreamSnippet("word ".repeat(1000))!;
    expect(snippet.length).toBe(SNIPPET_MAX_CHARS + 1);
    expect(snippet.endsWith("…")).toBe(true);
    expect(upstreamSnippet("x y ".repeat(10), { maxChars: 10 })).toBe("x y x y x …");
  });

  it("removes tokens and input runs before cutting, so a cut never leaves half of one", () => {
    // Cut first, a token at 295 would leave its first 5 characters, too short to look like one.
    const token = random(30);
    const prompt = `my private question zq-prompt-marker-3141 ${"and more ".repeat(40)}the end`;
    const cut = upstreamSnippet(`${"word ".repeat(59)}${token} then ${prompt}`, { inputs: [prompt] })!;
    expect(cut).toBe(`${`${"word ".repeat(59)}${SECRET_MARKER}`.slice(0, SNIPPET_MAX_CHARS)}…`);
    const quoted = upstreamSnippet(`Rejected: ${prompt} ${jwt()} (code 7)`, { inputs: [prompt] })!;
    expect(quoted).toBe(`Rejected: ${INPUT_MARKER} ${SECRET_MARKER} (code 7)`);
  });

  it("shows the text after a long quoted prompt, and never a piece of the prompt cut at the read window", () => {
    const prompt = `${"private words ".repeat(1000)}zq-prompt-marker-3141`;
    const snippet = upstreamSnippet(`{"error":"Rejected ${prompt} because it is too long"}`, { inputs: [prompt] })!;
    // The space before the quote is in the prompt too (between its words): the marker takes it.
    expect(snippet).toBe(`{"error":"Rejected${INPUT_MARKER} because it is too long"}`);
    const endless = upstreamSnippet(`Rejected ${prompt} ${prompt} ${prompt}`, { inputs: [prompt] })!;
    expect(endless).not.toMatch(/private|zq-prompt/);
  });
});

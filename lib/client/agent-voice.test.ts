/**
 * The browser's event stream of a live agent session, against a real HTTP server: streams that end
 * while the call goes on (a function's time limit) are opened again after the last event, for as
 * long as they bring something; streams that bring nothing make it give up after a few.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { agentVoiceClient, type AgentEvent } from "./agent-voice";

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Serves the events route: `answer(after)` gives the lines of one stream, which then ends. */
async function eventsServer(answer: (after: number) => object[]): Promise<{ origin: string; afters: number[] }> {
  const afters: number[] = [];
  server = createServer((request, response) => {
    const after = Number(new URL(request.url ?? "/", "http://x").searchParams.get("after"));
    afters.push(after);
    response.writeHead(200, { "content-type": "application/x-ndjson" });
    response.end(answer(after).map((line) => `${JSON.stringify(line)}\n`).join(""));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, afters };
}

function clientFor(origin: string) {
  return agentVoiceClient(undefined, (input, init) => fetch(`${origin}${String(input)}`, init));
}

it("follows a call across more ended streams than the resume limit, each after the last event seen", async () => {
  // Every stream ends after one event, as a function that reaches its time limit would.
  const { origin, afters } = await eventsServer((after) =>
    after < 7 ? [{ seq: after + 1, type: "handoff", at: 0, transcript: `part ${after + 1}` }] : [{ seq: 8, type: "session.closed", at: 0, reason: "closed_by_client" }],
  );
  const seen: AgentEvent[] = [];
  await clientFor(origin).follow("s1", (event) => seen.push(event), new AbortController().signal);
  expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  expect(seen.at(-1)).toMatchObject({ type: "session.closed" });
  expect(afters).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
});

it("a stream of keepalives only is still a live call: it resumes without counting it as a failure", async () => {
  let streams = 0;
  const { origin } = await eventsServer((after) => {
    streams += 1;
    return streams < 8 ? [{ seq: after, type: "keepalive", at: 0 }] : [{ seq: 1, type: "session.closed", at: 0, reason: "idle_timeout" }];
  });
  const seen: AgentEvent[] = [];
  await clientFor(origin).follow("s1", (event) => seen.push(event), new AbortController().signal);
  expect(seen).toEqual([{ seq: 1, type: "session.closed", at: 0, reason: "idle_timeout" }]);
  expect(streams).toBe(8);
});

it("gives up after five streams in a row that bring nothing", async () => {
  const { origin, afters } = await eventsServer(() => []);
  const seen: AgentEvent[] = [];
  await clientFor(origin).follow("s1", (event) => seen.push(event), new AbortController().signal);
  expect(seen).toEqual([]);
  expect(afters).toEqual([0, 0, 0, 0, 0]);
});

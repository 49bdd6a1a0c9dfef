/**
 * The fake Vercel Sandbox API behind the real `@vercel/sandbox` 3.5.0, reached the way the app
 * reaches Vercel: through its fetch seam (lib/agent-voice/vercel-sandbox-api.ts) and the
 * credentials it takes. A snapshot holds the session relay and the echo child (codex's stand-in);
 * sandboxes made from it run them detached, and the relay is reached at the url the API reports
 * for its port. Failure injection: 429 on create, a sandbox stopped mid-call, a port connection
 * dropped. Every test ends with no live sandbox, no VM, and none of their processes (by pid).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { APIError, Sandbox, type NetworkPolicy } from "@vercel/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openRelayChannel, type RelayLine } from "@/lib/agent-voice/relay/relay-client";
import { newRelayToken } from "@/lib/agent-voice/relay/relay-token";
import { SESSION_RELAY_SCRIPT, sessionRelayCommand } from "@/lib/agent-voice/relay/session-relay-script";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";
import { ECHO_CHILD, processAlive, waitUntil } from "@/test-support/session-relay-process";
import { FAKE_VERCEL_PROJECT_ID, startFakeVercelSandbox, type FakeVercelSandbox } from "./server";

const RELAY_PORT = 8080;
let fake: FakeVercelSandbox;
let api: ReturnType<typeof vercelSandboxApi>;
let snapshotId: string;
let outside: Server;
let outsidePort: number;
/** bwrap pids of every VM a test saw: none may be left. */
const vmPids = new Set<number>();

beforeAll(async () => {
  // A service on the host's loopback: the fake's "internet" for the egress tests.
  outside = createServer((_request, response) => response.end("outside"));
  await new Promise<void>((resolve) => outside.listen(0, "127.0.0.1", resolve));
  outsidePort = (outside.address() as AddressInfo).port;
  fake = await startFakeVercelSandbox({ egress: [`127.0.0.1:${outsidePort}`] });
  api = vercelSandboxApi(fake.url, { VERCEL_TOKEN: fake.token, VERCEL_TEAM_ID: fake.teamId, VERCEL_PROJECT_ID: FAKE_VERCEL_PROJECT_ID });

  // The snapshot: what the snapshot-making command would put in the VM (here the echo child stands in for codex).
  const base = await Sandbox.create({ ...api, timeout: 120_000, persistent: false, tags: { app: "lwc-test", role: "base" } });
  await base.mkDir("/opt/lwc");
  await base.writeFiles([
    { path: "/opt/lwc/session-relay.cjs", content: Buffer.from(SESSION_RELAY_SCRIPT) },
    { path: "/opt/lwc/echo-child.mjs", content: readFileSync(ECHO_CHILD) },
  ]);
  const snapshot = await base.snapshot();
  expect(snapshot.status).toBe("created");
  expect(base.status).toBe("stopped");
  snapshotId = snapshot.snapshotId;
}, 60_000);

afterAll(async () => {
  await fake?.close();
  await new Promise((resolve) => outside?.close(resolve));
});

afterEach(async () => {
  for (const sandbox of fake.stats().sandboxes) if (sandbox.status === "running") await Sandbox.get({ ...api, name: sandbox.name }).then((found) => found.stop());
  expect(fake.stats()).toMatchObject({ live: 0, vms: 0 });
  await waitUntil(() => [...vmPids].every((pid) => !processAlive(pid)));
});

/** A sandbox from the snapshot with the relay's port, the way a live session's would be made. */
async function sessionSandbox(tags: Record<string, string> = {}, networkPolicy: NetworkPolicy = "deny-all") {
  const sandbox = await Sandbox.create({
    ...api,
    source: { type: "snapshot", snapshotId },
    ports: [RELAY_PORT],
    timeout: 120_000,
    resources: { vcpus: 1 },
    persistent: false,
    networkPolicy,
    env: { LWC_EXAMPLE: "1" },
    tags: { app: "lwc-test", ...tags },
  });
  const vmPid = fake.stats().sandboxes.find((entry) => entry.name === sandbox.name)?.vmPid;
  expect(vmPid).toBeGreaterThan(0);
  vmPids.add(vmPid!);
  return sandbox;
}

/** Starts the relay with the echo child detached; resolves once it said it listens, with its channel's address and token. */
async function startRelay(sandbox: Sandbox) {
  const { token, sha256 } = newRelayToken();
  const [node, ...args] = sessionRelayCommand(
    { node: "node", scriptPath: "/opt/lwc/session-relay.cjs", listen: `0.0.0.0:${RELAY_PORT}`, tokenSha256: sha256, heartbeatMs: 200 },
    ["node", "/opt/lwc/echo-child.mjs"],
  );
  const command = await sandbox.runCommand({ cmd: node!, args, detached: true });
  let stdout = "";
  for await (const log of command.logs()) {
    if (log.stream === "stdout") stdout += log.data;
    if (stdout.includes("\n")) break;
  }
  expect(JSON.parse(stdout)).toMatchObject({ type: "listening", address: `0.0.0.0:${RELAY_PORT}` });
  const route = sandbox.routes.find((entry) => entry.port === RELAY_PORT)!;
  return { command, token, url: route.url };
}

function collect(url: string, token: string, reconnectForMs = 10_000) {
  const lines: RelayLine[] = [];
  const channel = openRelayChannel({ address: { url }, token, heartbeatTimeoutMs: 1_000, reconnectForMs, onLine: (line) => lines.push(line) });
  return { channel, lines };
}

describe("the fake Vercel Sandbox API, behind the real SDK", () => {
  it("creates sandboxes from a snapshot; the relay runs detached in each, on the same in-VM port, reached at the url the API reports", async () => {
    const [first, second] = [await sessionSandbox({ session: "a" }), await sessionSandbox({ session: "b" })];
    const [relayA, relayB] = [await startRelay(first), await startRelay(second)];
    expect(relayA.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(relayA.url).not.toBe(relayB.url);
    // The SDK's own domain() names Vercel's router, never a local address: the app uses the route's url.
    expect(first.domain(RELAY_PORT)).toMatch(/^https:\/\/.+\.vercel\.run$/);

    const a = collect(relayA.url, relayA.token);
    const b = collect(relayB.url, relayB.token);
    await a.channel.send(JSON.stringify({ say: "to A" }));
    await b.channel.send(JSON.stringify({ say: "to B" }));
    await waitUntil(() => a.lines.length === 1 && b.lines.length === 1);
    expect(a.lines).toEqual([{ seq: 1, line: '{"echo":{"say":"to A"}}' }]);
    expect(b.lines).toEqual([{ seq: 1, line: '{"echo":{"say":"to B"}}' }]);

    // Close through the relay: codex's stand-in and the relay end, and the command with them.
    expect(await a.channel.close()).toMatchObject({ reason: "exited", why: "closed" });
    expect((await relayA.command.wait()).exitCode).toBe(0);
    b.channel.detach();
    await first.stop();
    await second.stop();
  });

  it("runs commands: output as NDJSON logs, wait, kill (143 after SIGTERM), a non-detached command's exit code; files in and out", async () => {
    const sandbox = await sessionSandbox();
    const finished = await sandbox.runCommand("sh", ["-c", 'echo "out:$LWC_EXAMPLE:$HOME:$(pwd)"; echo err >&2; exit 3']);
    expect(finished.exitCode).toBe(3);
    expect(await finished.stdout()).toBe("out:1:/home/vercel-sandbox:/vercel/sandbox\n");
    expect(await finished.stderr()).toBe("err\n");

    const sleeper = await sandbox.runCommand({ cmd: "sleep", args: ["60"], detached: true });
    expect(sleeper.exitCode).toBeNull();
    await sleeper.kill("SIGTERM");
    expect((await sleeper.wait()).exitCode).toBe(143);

    await sandbox.writeFiles([{ path: "notes/a.txt", content: Buffer.from("hello") }]);
    expect((await sandbox.readFileToBuffer({ path: "/vercel/sandbox/notes/a.txt" }))?.toString()).toBe("hello");
    expect(await sandbox.readFileToBuffer({ path: "missing.txt" })).toBeNull();
    await expect(sandbox.writeFiles([{ path: "/etc/evil", content: Buffer.from("x") }])).rejects.toThrow(/400/);
    // The VM's files came from the snapshot.
    expect((await sandbox.readFileToBuffer({ path: "/opt/lwc/session-relay.cjs" }))?.toString()).toBe(SESSION_RELAY_SCRIPT);
    await sandbox.stop();
  });

  it("lists by tag, gets by name, extends the timeout, stops: the status follows", async () => {
    const mine = await sessionSandbox({ session: "listed" });
    const other = await sessionSandbox({ session: "other" });
    const listed = await (await Sandbox.list({ ...api, tags: { session: "listed" } })).toArray();
    expect(listed.map((entry) => entry.name)).toEqual([mine.name]);
    // The list reports when each was created; backdating one (a control route) moves only that.
    expect(Math.abs(listed[0]!.createdAt - Date.now())).toBeLessThan(60_000);
    await fetch(`${fake.url}/__fake/sandboxes/${mine.name}/backdate`, { method: "POST", body: JSON.stringify({ ms: 600_000 }) });
    const backdated = await (await Sandbox.list({ ...api, tags: { session: "listed" } })).toArray();
    expect(backdated[0]!.createdAt).toBe(listed[0]!.createdAt - 600_000);

    const found = await Sandbox.get({ ...api, name: mine.name });
    expect(found.status).toBe("running");
    expect(found.routes).toEqual(mine.routes);
    const before = found.currentSession().timeout;
    const expiresAt = found.expiresAt!.getTime();
    await found.extendTimeout(60_000);
    expect(found.currentSession().timeout).toBe(before + 60_000);
    expect((await Sandbox.get({ ...api, name: mine.name })).expiresAt!.getTime()).toBe(expiresAt + 60_000);

    await found.stop();
    expect((await Sandbox.get({ ...api, name: mine.name })).status).toBe("stopped");
    expect(fake.stats().live).toBe(1);
    await other.stop();
    await expect(Sandbox.get({ ...api, name: "no-such-sandbox" })).rejects.toBeInstanceOf(APIError);
  });

  it("create refused with 429 (Retry-After past 20 s: the SDK gives up at once); nothing is left", async () => {
    await fetch(`${fake.url}/__fake/fail-create`, { method: "POST", body: JSON.stringify({ status: 429, times: 1, retryAfter: 60 }) });
    const refused = await Sandbox.create({ ...api, source: { type: "snapshot", snapshotId }, timeout: 60_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError<unknown>).response.status).toBe(429);
    expect(fake.stats().live).toBe(0);
    // The next one goes through.
    const sandbox = await sessionSandbox();
    await sandbox.stop();
  });

  it("a sandbox stopped mid-call: the relay channel ends (unreachable) and the API says it is stopped", async () => {
    const sandbox = await sessionSandbox();
    const relay = await startRelay(sandbox);
    const client = collect(relay.url, relay.token, 1_000);
    await client.channel.send(JSON.stringify({ say: "before" }));
    await waitUntil(() => client.lines.length === 1);
    await fetch(`${fake.url}/__fake/sandboxes/${sandbox.name}/stop`, { method: "POST", body: "{}" });
    expect(await client.channel.ended).toMatchObject({ reason: "unreachable" });
    expect((await Sandbox.get({ ...api, name: sandbox.name })).status).toBe("stopped");
    expect((await relay.command.wait()).exitCode).not.toBe(0);
  });

  it("a port connection closed: the relay channel reconnects and misses nothing", async () => {
    const sandbox = await sessionSandbox();
    const relay = await startRelay(sandbox);
    const client = collect(relay.url, relay.token);
    await client.channel.send(JSON.stringify({ do: "lines", count: 2 }));
    await waitUntil(() => client.lines.length === 2);
    const dropped = (await (await fetch(`${fake.url}/__fake/sandboxes/${sandbox.name}/ports/${RELAY_PORT}/drop`, { method: "POST" })).json()) as { dropped: number };
    expect(dropped.dropped).toBeGreaterThan(0);
    await client.channel.send(JSON.stringify({ do: "lines", count: 2 }));
    await waitUntil(() => client.lines.length === 4);
    expect(client.lines.map((line) => line.seq)).toEqual([1, 2, 3, 4]);
    client.channel.detach();
    await sandbox.stop();
  });

  it("egress: a VM reaches an allowed loopback port only when its network policy names the host; never the fake's own port", async () => {
    const probe = (sandbox: Sandbox, port: number) =>
      sandbox.runCommand("node", ["-e", `fetch("http://127.0.0.1:${port}/").then(r => r.text()).then(t => console.log(t), e => { console.log("refused"); })`]).then((done) => done.stdout());
    const allowed = await sessionSandbox({}, { allow: ["127.0.0.1"] });
    expect(await probe(allowed, outsidePort)).toBe("outside\n");
    expect(await probe(allowed, Number(new URL(fake.url).port))).toBe("refused\n");
    const denied = await sessionSandbox({}, "deny-all");
    expect(await probe(denied, outsidePort)).toBe("refused\n");
    const otherHost = await sessionSandbox({}, { allow: ["chatgpt.com"] });
    expect(await probe(otherHost, outsidePort)).toBe("refused\n");
    for (const sandbox of [allowed, denied, otherHost]) await sandbox.stop();
  });
});

/**
 * Agent voice fails closed: when its sandbox cannot start (bwrap missing, or unable to build the
 * sandbox), POST /realtime/app-server answers 503 agent_sandbox_unavailable before anything is
 * spawned, the log says how to fix it (once), GET /realtime/app-server/status and the handler's
 * health state say so; `off` runs unsandboxed with a warning at start-up. The real bwrap backend
 * (no stub): pointed at a bwrap that does not exist, at an extra path that does not exist, or at a
 * bwrap that cannot make the sandbox's own network namespace.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBwrapSandbox } from "@/lib/agent-voice/sandbox";
import { createProviderHandler } from "@/lib/server/handler";
import { OFFER_SDP, startAgentHarness, finishAgentHarnessAfterEach, type AgentHarness } from "./app-server-harness";

let h: AgentHarness | undefined;
finishAgentHarnessAfterEach(
  () => h,
  () => (h = undefined),
);

const spawnedCount = async (harness: AgentHarness) => (await harness.pids()).length;

describe("the agent sandbox cannot start", () => {
  it("bwrap missing: 503 agent_sandbox_unavailable, nothing spawned, one log line with the fix, status and health say unavailable", async () => {
    h = await startAgentHarness({ agentVoice: { sandbox: createBwrapSandbox({ bwrapPath: join(import.meta.dirname, "no-such-bwrap") }) } });
    const client = await h.signedIn();

    const status = await client.get("/realtime/app-server/status");
    expect(status.status).toBe(200);
    expect(status.json()).toEqual({ available: false, sandbox: "bwrap", message: expect.stringMatching(/unavailable on this server/) });

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
      expect(reply.status).toBe(503);
      expect(reply.json()).toEqual({ error: "agent_sandbox_unavailable", message: expect.stringMatching(/sandbox/) });
    }
    expect(await spawnedCount(h)).toBe(0);
    expect(await h.provider.agentVoiceState()).toBe("unavailable");
    expect(await h.provider.agentVoiceLimits()).toBeNull();

    const lines = h.evidence.logs.filter((line) => line.message.includes("agent voice is unavailable"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", message: expect.stringContaining("apt-get install bubblewrap") });
    expect(lines[0]!.message).toContain("bwrap was not found");
  });

  it("bwrap present but unable to build the sandbox (an extra read-only path that does not exist): 503, nothing spawned, the fix for namespaces", async () => {
    h = await startAgentHarness({ agentVoice: { sandbox: "bwrap", sandboxReadOnlyPaths: [join(import.meta.dirname, "no-such-folder")] } });
    const client = await h.signedIn();
    const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
    expect(reply.status).toBe(503);
    expect(reply.json()).toMatchObject({ error: "agent_sandbox_unavailable" });
    expect(await spawnedCount(h)).toBe(0);
    const line = h.evidence.logs.find((entry) => entry.message.includes("agent voice is unavailable"));
    expect(line?.message).toContain("no-such-folder");
    expect(line?.message).toContain("seccomp");
  });

  it("a host that gives no network namespace (a bwrap refusing --unshare-net): 503, nothing spawned, the fix names the network namespace", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "lwc-no-netns-"));
    try {
      const noNetwork = join(scratch, "bwrap");
      writeFileSync(
        noNetwork,
        `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = --unshare-net ] && { echo "bwrap: Creating new namespace failed: Operation not permitted" >&2; exit 1; }; done\nexec bwrap "$@"\n`,
        { mode: 0o755 },
      );
      h = await startAgentHarness({ agentVoice: { sandbox: createBwrapSandbox({ bwrapPath: noNetwork }) } });
      const client = await h.signedIn();
      const reply = await client.post("/realtime/app-server", { sdp: OFFER_SDP, session: { voice: "cove" } });
      expect(reply.status).toBe(503);
      expect(reply.json()).toEqual({ error: "agent_sandbox_unavailable", message: expect.stringMatching(/sandbox/) });
      expect(await spawnedCount(h)).toBe(0);
      const lines = h.evidence.logs.filter((entry) => entry.message.includes("agent voice is unavailable"));
      expect(lines).toHaveLength(1);
      expect(lines[0]!.message).toContain("Creating new namespace failed");
      expect(lines[0]!.message).toContain("network namespace of its own");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("needs a signed-in session before it says anything (401)", async () => {
    h = await startAgentHarness({ agentVoice: { sandbox: createBwrapSandbox({ bwrapPath: "/nonexistent/bwrap" }) } });
    const client = h.client();
    expect((await client.get("/realtime/app-server/status")).status).toBe(401);
    expect((await client.post("/realtime/app-server", { sdp: OFFER_SDP })).json()).toMatchObject({ error: "not_authenticated" });
  });
});

describe("the agent sandbox's state", () => {
  it("bwrap available (the default): status says so, health says sandboxed, nothing logged", async () => {
    h = await startAgentHarness({ agentVoice: { sandbox: undefined } });
    const client = await h.signedIn();
    expect((await client.get("/realtime/app-server/status")).json()).toEqual({ available: true, sandbox: "bwrap" });
    expect(await h.provider.agentVoiceState()).toBe("sandboxed");
    expect(await h.provider.agentVoiceLimits()).toMatch(/^(cgroup|rlimit)$/);
    expect(h.evidence.logs.filter((line) => line.message.includes("sandbox"))).toEqual([]);
  });

  it("off: a warning at start-up saying what it exposes; status and health say unsandboxed; starts work", async () => {
    h = await startAgentHarness({ agentVoice: { sandbox: "off" } });
    const warning = h.evidence.logs.find((line) => line.message.includes("WITHOUT a sandbox"));
    expect(warning).toMatchObject({ level: "warn", message: expect.stringContaining("LWC_AGENT_SANDBOX=off") });
    expect(warning!.message).toContain("/proc/<pid>/environ");
    const client = await h.signedIn();
    expect((await client.get("/realtime/app-server/status")).json()).toEqual({ available: true, sandbox: "off" });
    expect(await h.provider.agentVoiceState()).toBe("unsandboxed");
    expect(await h.provider.agentVoiceLimits()).toMatch(/^(cgroup|rlimit)$/);
    const { sessionId } = await h.startLive(client);
    expect((await client.request("DELETE", `/realtime/app-server/${sessionId}`)).status).toBe(200);
  });

  it("without agent voice the handler reports it off", async () => {
    expect(await createProviderHandler({ secrets: ["x".repeat(32)] }).agentVoiceState()).toBe("off");
    expect(await createProviderHandler({ secrets: ["x".repeat(32)] }).agentVoiceLimits()).toBeNull();
  });
});

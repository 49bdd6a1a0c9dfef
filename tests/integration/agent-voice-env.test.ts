/** LWC_CODEX_COMMAND and the agent-voice limits, read by lib/provider-app.ts, under their names of today and of before. */
import { afterEach, describe, expect, it, vi } from "vitest";

async function load() {
  vi.resetModules();
  vi.stubEnv("LWC_SECRET", "provider-app-test-secret-0123456789abcdef");
  return import("@/lib/provider-app");
}

afterEach(() => vi.unstubAllEnvs());

describe("agent voice environment", () => {
  it("is off without LWC_CODEX_COMMAND", async () => {
    const { optionsFromEnv } = await load();
    const options = optionsFromEnv({});
    expect(options.realtime?.agentVoice).toBeUndefined();
    expect(options.confirmTool).toBeUndefined();
  });

  it("LWC_CODEX_COMMAND turns it on with the reference tools, confirmTool and the documented limits", async () => {
    const { optionsFromEnv } = await load();
    const options = optionsFromEnv({ LWC_CODEX_COMMAND: " /opt/codex/bin/codex " });
    expect(options.realtime?.agentVoice).toMatchObject({ command: "/opt/codex/bin/codex", idleTimeoutMs: 600_000, maxDurationMs: 3_600_000 });
    expect(options.realtime?.agentVoice?.tools?.map((tool) => tool.name)).toEqual(["get_current_time", "save_note"]);
    expect(options.confirmTool).toBeTypeOf("function");
    const custom = optionsFromEnv({
      LWC_CODEX_COMMAND: "codex",
      LWC_AGENT_VOICE_IDLE_SECONDS: "30",
      LWC_AGENT_VOICE_MAX_SECONDS: "120",
    });
    expect(custom.realtime?.agentVoice).toMatchObject({ idleTimeoutMs: 30_000, maxDurationMs: 120_000 });
  });

  it("LWC_AGENT_SANDBOX: bwrap by default, off on request; LWC_AGENT_SANDBOX_READONLY_PATHS: a colon list of absolute paths", async () => {
    const { optionsFromEnv } = await load();
    const byDefault = optionsFromEnv({ LWC_CODEX_COMMAND: "codex" });
    expect(byDefault.realtime?.agentVoice?.sandbox).toBe("bwrap");
    expect(byDefault.realtime?.agentVoice?.sandboxReadOnlyPaths).toBeUndefined();
    const off = optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX: " OFF " });
    expect(off.realtime?.agentVoice?.sandbox).toBe("off");
    const extra = optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX_READONLY_PATHS: "/opt/codex: /usr/local/share/certs:" });
    expect(extra.realtime?.agentVoice?.sandboxReadOnlyPaths).toEqual(["/opt/codex", "/usr/local/share/certs"]);
    expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX: "docker" })).toThrow(/LWC_AGENT_SANDBOX/);
    expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX_READONLY_PATHS: "opt/codex" })).toThrow(
      /LWC_AGENT_SANDBOX_READONLY_PATHS.*absolute/,
    );
  });

  it("LWC_AGENT_SANDBOX=vercel: the Vercel Sandbox settings from LWC_VERCEL_SANDBOX_*, with their defaults; other sandboxes carry none", async () => {
    const { optionsFromEnv } = await load();
    const vercel = optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX: "vercel", LWC_VERCEL_SANDBOX_SNAPSHOT: "snap_abc" });
    expect(vercel.realtime?.agentVoice).toMatchObject({
      sandbox: "vercel",
      vercelSandbox: { apiUrl: "https://vercel.com/api", snapshotId: "snap_abc", vcpus: 1, timeoutMs: 3_900_000 },
    });
    const sized = optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX: "Vercel", LWC_VERCEL_SANDBOX_VCPUS: "2", LWC_VERCEL_SANDBOX_TIMEOUT_SECONDS: "600" });
    expect(sized.realtime?.agentVoice?.vercelSandbox).toMatchObject({ snapshotId: undefined, vcpus: 2, timeoutMs: 600_000 });
    expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_VERCEL_SANDBOX_SNAPSHOT: "snap_abc" }).realtime?.agentVoice?.vercelSandbox).toBeUndefined();
  });

  it("LWC_AGENT_SANDBOX_ALLOW_HOSTS: a comma list of URLs or host:port pairs the sandbox may also reach; anything else stops the start", async () => {
    const { optionsFromEnv } = await load();
    expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex" }).realtime?.agentVoice?.sandboxAllowHosts).toBeUndefined();
    const extra = optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX_ALLOW_HOSTS: " eu.chatgpt.com:443, https://ab.example.com/path ,[::1]:8443," });
    expect(extra.realtime?.agentVoice?.sandboxAllowHosts).toEqual(["eu.chatgpt.com:443", "https://ab.example.com/path", "[::1]:8443"]);
    for (const bad of ["chatgpt.com", "*.openai.com:443", "file:///etc/hosts"]) {
      expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_SANDBOX_ALLOW_HOSTS: bad }), bad).toThrow(/LWC_AGENT_SANDBOX_ALLOW_HOSTS.*host:port/);
    }
  });

  it("the handler's sandbox allow-list: the hosts its codex config contacts (upstream, account and sideband bases), then the extra ones; a bad extra one stops it", async () => {
    const { resolveOptions } = await import("@/lib/server/options");
    const upstream = { issuer: "http://127.0.0.1:4010", codexBaseUrl: "http://127.0.0.1:4010/backend-api/codex" };
    const resolved = resolveOptions({ secrets: ["x".repeat(32)], upstream, realtime: { agentVoice: { command: "codex", sandboxAllowHosts: ["eu.chatgpt.com:443"] } } });
    expect(resolved.agentVoice?.sandboxAllowHosts).toEqual([
      "http://127.0.0.1:4010/backend-api/codex",
      "http://127.0.0.1:4010",
      "http://127.0.0.1:4010/backend-api/",
      "http://127.0.0.1:4010",
      "eu.chatgpt.com:443",
    ]);
    const real = resolveOptions({ secrets: ["x".repeat(32)], realtime: { agentVoice: { command: "codex" } } });
    expect(real.agentVoice?.sandboxAllowHosts).toEqual(["https://chatgpt.com/backend-api/codex", "https://auth.openai.com", "https://chatgpt.com/backend-api/", "https://api.openai.com"]);
    expect(() => resolveOptions({ secrets: ["x".repeat(32)], realtime: { agentVoice: { command: "codex", sandboxAllowHosts: ["*.openai.com"] } } })).toThrow(
      /realtime\.agentVoice\.sandboxAllowHosts: not a URL or host:port/,
    );
  });

  it("reads the caps per account and per instance (defaults 2 and 8)", async () => {
    const { optionsFromEnv } = await load();
    expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex" }).realtime?.agentVoice).toMatchObject({ maxSessionsPerAccount: 2, maxSessions: 8 });
    const custom = optionsFromEnv({
      LWC_CODEX_COMMAND: "codex",
      LWC_AGENT_VOICE_MAX_SESSIONS_PER_ACCOUNT: "1",
      LWC_AGENT_VOICE_MAX_SESSIONS: "20",
    });
    expect(custom.realtime?.agentVoice).toMatchObject({ maxSessionsPerAccount: 1, maxSessions: 20 });
    expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_VOICE_MAX_SESSIONS: "0" })).toThrow(
      /LWC_AGENT_VOICE_MAX_SESSIONS/,
    );
  });

  it("refuses a limit that is not a positive integer, naming the variable", async () => {
    const { optionsFromEnv } = await load();
    expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_AGENT_VOICE_IDLE_SECONDS: "soon" })).toThrow(
      /LWC_AGENT_VOICE_IDLE_SECONDS/,
    );
  });

  it("still reads each variable under its old name (LWC_REALTIME_APP_SERVER_*); the new name wins when both are set", async () => {
    const { optionsFromEnv } = await load();
    const renamed = {
      IDLE_SECONDS: ["idleTimeoutMs", "30", 30_000, "45", 45_000],
      MAX_SECONDS: ["maxDurationMs", "120", 120_000, "180", 180_000],
      MAX_SESSIONS_PER_ACCOUNT: ["maxSessionsPerAccount", "1", 1, "3", 3],
      MAX_SESSIONS: ["maxSessions", "20", 20, "30", 30],
    } as const;
    for (const [suffix, [option, oldValue, fromOld, newValue, fromNew]] of Object.entries(renamed)) {
      const oldName = `LWC_REALTIME_APP_SERVER_${suffix}`;
      const newName = `LWC_AGENT_VOICE_${suffix}`;
      expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex", [oldName]: oldValue }).realtime?.agentVoice, oldName).toMatchObject({ [option]: fromOld });
      expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex", [oldName]: oldValue, [newName]: newValue }).realtime?.agentVoice, newName).toMatchObject({
        [option]: fromNew,
      });
      // A blank new name (as copied from .env.example) is unset: the old one still counts.
      expect(optionsFromEnv({ LWC_CODEX_COMMAND: "codex", [oldName]: oldValue, [newName]: " " }).realtime?.agentVoice, `${newName} blank`).toMatchObject({
        [option]: fromOld,
      });
    }
  });

  it("a bad value under an old name is refused naming the old name, and the new one", async () => {
    const { optionsFromEnv } = await load();
    expect(() => optionsFromEnv({ LWC_CODEX_COMMAND: "codex", LWC_REALTIME_APP_SERVER_MAX_SESSIONS: "0" })).toThrow(
      /LWC_REALTIME_APP_SERVER_MAX_SESSIONS \(now LWC_AGENT_VOICE_MAX_SESSIONS\)/,
    );
  });

  it("the handler still takes realtime.appServer, the option's old name; realtime.agentVoice wins when both are given", async () => {
    const { resolveOptions } = await import("@/lib/server/options");
    const secrets = ["x".repeat(32)];
    expect(resolveOptions({ secrets, realtime: { appServer: { command: "old-codex" } } }).agentVoice?.command).toBe("old-codex");
    expect(resolveOptions({ secrets, realtime: { appServer: { command: "old-codex" }, agentVoice: { command: "new-codex" } } }).agentVoice?.command).toBe(
      "new-codex",
    );
    expect(() => resolveOptions({ secrets, realtime: { appServer: { command: "codex", sandboxAllowHosts: ["*.openai.com"] } } })).toThrow(
      /realtime\.appServer\.sandboxAllowHosts: not a URL or host:port/,
    );
  });
});

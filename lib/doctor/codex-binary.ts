import "server-only";
import { spawn } from "node:child_process";
import type { CheckResult } from "./types";

const MAX_OUTPUT_CHARS = 4096;

/** `<command> --version`: its output, or why it could not be run. Ends the whole process group on timeout. */
function runVersion(command: string, timeoutMs: number): Promise<{ output: string } | { error: string }> {
  return new Promise((resolve) => {
    let output = "";
    let child;
    try {
      // Its own process group: the npm launcher starts the native binary, and a timeout ends both.
      child = spawn(command, ["--version"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch (error) {
      resolve({ error: error instanceof Error ? error.message : String(error) });
      return;
    }
    const pid = child.pid;
    const timer = setTimeout(() => {
      if (pid !== undefined) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }, timeoutMs);
    const collect = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(0, MAX_OUTPUT_CHARS));
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (signal === "SIGKILL") resolve({ error: `no answer within ${timeoutMs} ms` });
      else if (code !== 0) resolve({ error: `exited with code ${code}` });
      else resolve({ output });
    });
  });
}

/** The codex executable agent voice runs is there, and its version is the one we send upstream. */
export async function checkCodexBinary(command: string | undefined, clientVersion: string, timeoutMs = 10_000): Promise<CheckResult> {
  const result = (status: CheckResult["status"], detail: string): CheckResult => ({ check: "codex binary", status, detail });
  if (!command) return result("skip", "agent voice is off (LWC_CODEX_COMMAND unset, or LWC_REALTIME=off)");
  const ran = await runVersion(command, timeoutMs);
  if ("error" in ran) return result("fail", `LWC_CODEX_COMMAND could not be run (${ran.error}); install it with scripts/ensure-codex.sh`);
  const version = /codex-cli\s+(\d+\.\d+\.\d+\S*)/.exec(ran.output)?.[1];
  if (!version) return result("fail", `LWC_CODEX_COMMAND --version did not say "codex-cli x.y.z"`);
  if (version !== clientVersion) {
    return result("fail", `codex-cli ${version}, but this server sends client version ${clientVersion}: install codex ${clientVersion} (scripts/ensure-codex.sh) or set LWC_CLIENT_VERSION`);
  }
  return result("ok", `codex-cli ${version}, the client version this server sends`);
}

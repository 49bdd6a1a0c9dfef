import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkCodexBinary } from "./codex-binary";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** An executable shell script standing in for a codex launcher (what `--version` runs); `body` may use $DIR. */
function script(body: string): { path: string; folder: string } {
  const folder = mkdtempSync(join(tmpdir(), "doctor-codex-"));
  folders.push(folder);
  const path = join(folder, "codex");
  body = body.replaceAll("$DIR", folder);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, folder };
}

/** Running (a zombie waiting for init to reap it runs nothing). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("checkCodexBinary", () => {
  it("compares the reported codex-cli version with ours", async () => {
    const { path } = script('echo "codex-cli 0.169.0"');
    expect(await checkCodexBinary(path, "0.169.0")).toMatchObject({ status: "ok" });
    expect(await checkCodexBinary(path, "0.170.0")).toMatchObject({ status: "fail", detail: expect.stringMatching(/codex-cli 0\.169\.0, but .* 0\.170\.0/) });
  });

  it("output that is not a codex version fails, and so does a non-zero exit", async () => {
    expect(await checkCodexBinary(script('echo "hello"').path, "0.169.0")).toMatchObject({ status: "fail", detail: expect.stringMatching(/did not say/) });
    expect(await checkCodexBinary(script("exit 3").path, "0.169.0")).toMatchObject({ status: "fail", detail: expect.stringMatching(/code 3/) });
  });

  it("a launcher that never answers is ended with everything it started (its process group)", async () => {
    // The launcher starts a child (as the npm launcher starts the native binary), records its pid, and waits.
    const { path, folder } = script('sleep 60 &\necho $! > "$DIR/child.pid"\necho $$ > "$DIR/launcher.pid"\nwait');
    const result = await checkCodexBinary(path, "0.169.0", 500);
    expect(result).toMatchObject({ status: "fail", detail: expect.stringMatching(/no answer within 500 ms/) });
    const pids = ["launcher.pid", "child.pid"].map((file) => Number(readFileSync(join(folder, file), "utf8")));
    // The close event comes once every holder of the pipes (the child too) is dead. A pid running now
    // counts only if it is still ours (the launcher or its `sleep 60`): on a busy machine a pid is
    // soon given to another process.
    const ours = (pid: number) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return command.includes(folder) || command === "sleep\u000060\u0000";
      } catch {
        return false;
      }
    };
    expect(pids.filter((pid) => running(pid) && ours(pid))).toEqual([]);
  });
});

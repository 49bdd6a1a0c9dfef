import "server-only";
/**
 * makeCodexSnapshot(api, options): the Vercel Sandbox snapshot every agent-voice sandbox starts
 * from (`npm run agent-voice:snapshot`, scripts/agent-voice-snapshot.ts). In a fresh sandbox it
 * installs the pinned `@openai/codex` with npm (the only host it may reach is npm's registry),
 * links it at VM_CODEX, writes the session relay script, checks that `codex --version` prints
 * the pin, and snapshots it (which stops that sandbox). Each run makes a new snapshot; the
 * sandbox is stopped on every path.
 *
 * `codex: { linkTo }` skips npm and links a codex the image already has (the local fake, which
 * shows the host's pinned codex read-only and has no way to npm's registry).
 */
import { Sandbox } from "@vercel/sandbox";
import { SESSION_RELAY_SCRIPT } from "../../relay/session-relay-script";
import { sandboxApiFailure, VercelSandboxError } from "./errors";
import { VM_CODEX, VM_CODEX_HOME, VM_CODEX_PREFIX, VM_RELAY_SCRIPT } from "./layout";
import type { VercelSandboxApi } from "./start";

const NPM_REGISTRY_HOST = "registry.npmjs.org";
/** A tag of its own, not the app's: a sweep must not stop a snapshot being made. */
const SNAPSHOT_TAG = { "lwc-role": "agent-voice-snapshot" };
const BUILD_TIMEOUT_MS = 30 * 60_000;

interface SnapshotOptions {
  /** The pinned codex version (lib/upstream/client-version.json). */
  codexVersion: string;
  codex: { install: "npm" } | { linkTo: string };
  /** Progress lines, for the script's output. */
  log?(line: string): void;
}

async function run(sandbox: Sandbox, cmd: string, args: string[]): Promise<string> {
  const done = await sandbox.runCommand(cmd, args);
  const stdout = await done.stdout();
  if (done.exitCode !== 0) {
    const stderr = (await done.stderr()).trim().split("\n").slice(-5).join("\n");
    throw new VercelSandboxError("not_started", `${cmd} ${args[0] ?? ""} exited with code ${done.exitCode}: ${stderr}`);
  }
  return stdout;
}

export async function makeCodexSnapshot(api: VercelSandboxApi, options: SnapshotOptions): Promise<{ snapshotId: string; sizeBytes: number }> {
  const log = options.log ?? (() => undefined);
  const npm = "install" in options.codex;
  let sandbox: Sandbox;
  try {
    sandbox = await Sandbox.create({
      ...api,
      timeout: BUILD_TIMEOUT_MS,
      persistent: false,
      networkPolicy: npm ? { allow: [NPM_REGISTRY_HOST] } : "deny-all",
      tags: SNAPSHOT_TAG,
    });
  } catch (error) {
    throw sandboxApiFailure(error, "create");
  }
  log(`sandbox ${sandbox.name} started`);
  try {
    let codex: string;
    if ("linkTo" in options.codex) {
      codex = options.codex.linkTo;
    } else {
      log(`installing @openai/codex@${options.codexVersion}`);
      await run(sandbox, "npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", VM_CODEX_PREFIX, `@openai/codex@${options.codexVersion}`]);
      codex = `${VM_CODEX_PREFIX}/node_modules/.bin/codex`;
    }
    await run(sandbox, "mkdir", ["-p", VM_CODEX.slice(0, VM_CODEX.lastIndexOf("/"))]);
    await run(sandbox, "ln", ["-sfn", codex, VM_CODEX]);
    await sandbox.writeFiles([{ path: VM_RELAY_SCRIPT, content: Buffer.from(SESSION_RELAY_SCRIPT), mode: 0o644 }]);
    const version = (await run(sandbox, VM_CODEX, ["--version"])).trim();
    if (version.split(/\s+/).at(-1) !== options.codexVersion) throw new VercelSandboxError("not_started", `codex --version printed "${version}", not ${options.codexVersion}`);
    // Running codex may have made its home: the snapshot holds none (each session writes its own).
    await run(sandbox, "rm", ["-rf", VM_CODEX_HOME]);
    log(`${version} in place; snapshotting`);
    const snapshot = await sandbox.snapshot({ expiration: 0 });
    return { snapshotId: snapshot.snapshotId, sizeBytes: snapshot.sizeBytes };
  } catch (error) {
    throw sandboxApiFailure(error, "snapshot");
  } finally {
    if (sandbox.status === "running") await sandbox.stop().catch(() => undefined);
  }
}

import "server-only";
/**
 * What a command needs from the host's disk to run, worked out from the command alone:
 *
 * - the executable itself, symlinks resolved (`node_modules/.bin/codex` is a link into the package);
 * - its own folder, or, when it lives inside a `node_modules` folder, that whole `node_modules`
 *   (the codex launcher loads its platform package, a sibling, from there);
 * - for a script, the program its `#!` line names and the interpreter that program runs:
 *   `#!/usr/bin/env node` shows /usr/bin/env and the `node` found on the command's PATH,
 *   `#!/bin/sh` shows /bin/sh.
 *
 * A wrapper script that runs something else by path (`exec /opt/codex/bin/codex`) needs that
 * something listed as an extra read-only path: only the first line of a script is read.
 */
import { accessSync, constants, openSync, readSync, closeSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/** A host path shown inside the sandbox at `inside` (the same path, or the link's own path). */
export interface VisiblePath {
  host: string;
  inside: string;
  /** Why it is shown: the refusal's log line says what to change. */
  source: "system" | "command" | "extra" | "network";
}

interface CommandFiles {
  /** The executable to run inside: the command with every symlink resolved. */
  executable: string;
  /** Read-only paths it needs besides the system folders. */
  paths: VisiblePath[];
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A bare name looked up on PATH, as execvp would; a path made absolute. Undefined when not found. */
export function findExecutable(command: string, pathVariable: string | undefined): string | undefined {
  if (command.includes("/")) return isExecutableFile(resolve(command)) ? resolve(command) : undefined;
  for (const folder of (pathVariable ?? "").split(delimiter)) {
    if (!isAbsolute(folder)) continue;
    const candidate = join(folder, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The outermost folder of the package tree the file belongs to: its nearest `node_modules` ancestor. */
function nearestNodeModules(file: string): string | undefined {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    if (basename(folder) === "node_modules") return folder;
  }
  return undefined;
}

function firstLine(file: string): string {
  const buffer = Buffer.alloc(256);
  const fd = openSync(file, "r");
  try {
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).toString("utf8").split("\n")[0] ?? "";
  } finally {
    closeSync(fd);
  }
}

/**
 * What a `#!` line runs: the program the kernel starts (`/usr/bin/env`, `/bin/sh`) and, after `env`
 * and its options, the interpreter it looks up on PATH. Undefined for a binary.
 */
function shebang(line: string): { program: string; lookedUp?: string } | undefined {
  if (!line.startsWith("#!")) return undefined;
  const words = line.slice(2).trim().split(/\s+/).filter((word) => word !== "");
  const [program, ...rest] = words;
  if (!program) return undefined;
  if (basename(program) !== "env") return { program };
  const lookedUp = rest.find((word) => !word.startsWith("-"));
  return lookedUp ? { program, lookedUp } : { program };
}

/** Throws when the command or its interpreter cannot be found (the start then fails with that message). */
export function commandFiles(command: string, env: Record<string, string>): CommandFiles {
  const found = findExecutable(command, env.PATH);
  if (!found) throw new Error(`the command ${JSON.stringify(command)} was not found or is not executable`);
  const executable = realpathSync(/* turbopackIgnore: true */ found);
  const folder = nearestNodeModules(executable) ?? dirname(executable);
  const paths: VisiblePath[] = [{ host: folder, inside: folder, source: "command" }];

  const line = shebang(firstLine(executable));
  if (line) {
    if (!isAbsolute(line.program)) throw new Error(`the #! line of the command names ${JSON.stringify(line.program)}, not an absolute path`);
    paths.push({ host: realpathSync(line.program), inside: line.program, source: "command" });
    if (line.lookedUp) {
      const where = isAbsolute(line.lookedUp) ? line.lookedUp : findExecutable(line.lookedUp, env.PATH);
      if (!where) throw new Error(`the interpreter ${JSON.stringify(line.lookedUp)} of the command was not found on its PATH`);
      paths.push({ host: realpathSync(where), inside: where, source: "command" });
    }
  }
  return { executable, paths };
}

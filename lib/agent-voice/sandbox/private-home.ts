import "server-only";
/**
 * The process's home inside bwrap: a tmpfs of at most `LWC_AGENT_HOME_MB` at the home's own path,
 * the only place it may write, gone with the sandbox. What the server put in the host folder
 * before the start (codex's config.toml) is shown in it read-only; its folders are made writable
 * in the tmpfs. A write past the size fails with "No space left on device". A folder the caller
 * binds itself afterwards (`boundLater`: the egress folder, sandbox-network.ts) is left out.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export function privateHomeArgs(homeDir: string, maxBytes: number, boundLater: string[] = []): string[] {
  const args = ["--perms", "0700", "--size", String(maxBytes), "--tmpfs", homeDir];
  let entries;
  try {
    entries = readdirSync(/* turbopackIgnore: true */ homeDir, { recursive: true, withFileTypes: true });
  } catch {
    return args; // No host folder: an empty home.
  }
  const depth = (path: string) => path.split("/").length;
  const isBoundLater = (path: string) => boundLater.some((folder) => path === folder || path.startsWith(`${folder}/`));
  const found = entries
    .map((entry) => ({ path: join(entry.parentPath, entry.name), folder: entry.isDirectory() }))
    .filter(({ path }) => !isBoundLater(path))
    .sort((a, b) => depth(a.path) - depth(b.path));
  for (const { path, folder } of found) args.push(...(folder ? ["--dir", path] : ["--ro-bind", path, path]));
  return args;
}

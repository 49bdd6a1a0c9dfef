import "server-only";
/**
 * Everything of the host a process inside the bwrap sandbox can read: a short list of system
 * paths, what the command itself needs (command-files.ts) and the operator's extra paths. Not
 * /usr whole: an app deployed under /usr (WORKDIR /usr/src/app) or anything else kept there stays
 * out of sight.
 *
 * The system list is what the pinned codex opens during a whole session, traced with
 * `strace -f -e trace=%file` (start, a tool call, a handoff, apply_patch; docs/agent-voice.md#the-sandbox):
 * the launcher's node loads its shared libraries (libc, libm, libstdc++, libgcc_s, libdl,
 * libpthread) through the dynamic loader and /etc/ld.so.cache, and reads OpenSSL's configuration
 * and the C.UTF-8 locale; the native codex, a static binary, reads the CA certificates,
 * /etc/localtime and os-release (its User-Agent names the OS). The name-resolution files are
 * those the C library reads to reach the provider. Each path is shown only where it exists.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { VisiblePath } from "./command-files";

/** Debian and Ubuntu keep a platform's libraries in /usr/lib/<triplet>. */
const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu" };

/** Top-level library folders; on a merged /usr they are links (/lib -> usr/lib) and stay links. */
const LIBRARY_ROOTS = ["/lib", "/lib64", "/lib32", "/libx32"];

const SYSTEM_FILES = [
  // The dynamic loader's cache; name resolution.
  "/etc/ld.so.cache",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  // CA certificates (Debian, Alpine, Fedora/RHEL layouts) and OpenSSL's configuration.
  "/etc/ssl/certs",
  "/etc/ssl/cert.pem",
  "/etc/ssl/openssl.cnf",
  "/usr/lib/ssl",
  "/usr/share/ca-certificates",
  "/etc/pki/tls/certs",
  "/etc/pki/tls/cert.pem",
  "/etc/pki/ca-trust",
  // Time zones.
  "/etc/localtime",
  "/etc/timezone",
  "/usr/share/zoneinfo",
  // The C.UTF-8 locale node sets; the OS name codex reports.
  "/usr/lib/locale",
  "/etc/os-release",
  "/usr/lib/os-release",
];

/**
 * The folders holding the shared libraries: the platform's multiarch folder and /usr/lib64 where
 * they exist (with /usr/lib's own loader links, ld-*), else /usr/lib whole (Alpine keeps them there).
 */
function libraryFolders(): string[] {
  const multiarch = MULTIARCH[process.arch];
  const specific = [multiarch ? `/usr/lib/${multiarch}` : undefined, "/usr/lib64", "/usr/lib32", "/usr/libx32"].filter(
    (folder): folder is string => folder !== undefined && existsSync(/* turbopackIgnore: true */ folder),
  );
  if (specific.length === 0) return existsSync("/usr/lib") ? ["/usr/lib"] : [];
  const loaders = existsSync("/usr/lib") ? readdirSync("/usr/lib").filter((name) => name.startsWith("ld-")).map((name) => join("/usr/lib", name)) : [];
  return [...specific, ...loaders];
}

/** A system path as it is shown: a top-level link stays a link, anything else is bound read-only. */
type SystemEntry = { link: string; target: string } | VisiblePath;

function systemEntries(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const root of LIBRARY_ROOTS) {
    let stat;
    try {
      stat = lstatSync(root);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) entries.push({ link: root, target: readlinkSync(root) });
    else if (stat.isDirectory()) entries.push({ host: root, inside: root, source: "system" });
  }
  for (const path of [...libraryFolders(), ...SYSTEM_FILES]) {
    if (existsSync(/* turbopackIgnore: true */ path)) entries.push({ host: path, inside: path, source: "system" });
  }
  return entries;
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** Real path on the host (a bind shows the link's target), or the path itself when it is gone. */
export function hostRealPath(path: string): string {
  try {
    return realpathSync(/* turbopackIgnore: true */ path);
  } catch {
    return path;
  }
}

/** Every host path the sandbox shows read-only, system paths first, each once. */
export function visiblePaths(commandPaths: VisiblePath[], extraReadOnly: string[]): { links: { link: string; target: string }[]; binds: VisiblePath[] } {
  const links: { link: string; target: string }[] = [];
  const binds: VisiblePath[] = [];
  for (const entry of systemEntries()) {
    if ("link" in entry) links.push(entry);
    else binds.push(entry);
  }
  const extra = extraReadOnly.map((path): VisiblePath => ({ host: path, inside: path, source: "extra" }));
  for (const path of [...commandPaths, ...extra]) {
    // Already visible through a folder shown at the same place (the host's /usr/bin/env under a shown /usr/lib, say).
    const covered = binds.some((bind) => bind.host === bind.inside && isUnder(path.inside, bind.inside) && isUnder(path.host, bind.host));
    if (!covered) binds.push(path);
  }
  return { links, binds };
}

/**
 * The bwrap arguments: links first, then the binds, a folder before anything inside it (a later
 * bind over a parent would hide what was bound into it).
 */
export function visiblePathArgs(visible: { links: { link: string; target: string }[]; binds: VisiblePath[] }): string[] {
  const depth = (path: string) => path.split("/").length;
  const ordered = [...visible.binds].sort((a, b) => depth(a.inside) - depth(b.inside));
  return [
    ...visible.links.flatMap(({ link, target }) => ["--symlink", target, link]),
    ...ordered.flatMap((path) => ["--ro-bind", path.host, path.inside]),
  ];
}

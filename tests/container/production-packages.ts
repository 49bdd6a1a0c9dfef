/**
 * Which installed packages production needs, from package-lock.json: those reachable from
 * package.json's `dependencies` through each package's dependencies, optional dependencies and
 * required peers, resolved as Node does (the nearest node_modules folder upwards). A package only a
 * dev dependency or an optional peer reaches (next's optional peer @playwright/test) is not one.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

interface LockPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

interface Lockfile {
  packages: Record<string, LockPackage>;
}

/** The lock path `name` resolves to from the package at `from` ("" is the project). */
function resolvePath(lock: Lockfile, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const parent = base.lastIndexOf("/node_modules/");
    base = parent < 0 ? "" : base.slice(0, parent);
  }
}

/** Lock paths (`node_modules/a`, `node_modules/a/node_modules/b`) production needs. */
export function productionPackages(lock: Lockfile): Set<string> {
  const needed = new Set<string>();
  const queue: string[] = [""];
  while (queue.length > 0) {
    const from = queue.pop()!;
    const entry = lock.packages[from] ?? {};
    const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter((name) => !entry.peerDependenciesMeta?.[name]?.optional);
    // The project's own devDependencies are not followed; optional ones missing on this platform resolve to nothing.
    for (const name of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...requiredPeers]) {
      const path = resolvePath(lock, from, name);
      if (path && !needed.has(path)) {
        needed.add(path);
        queue.push(path);
      }
    }
  }
  return needed;
}

/** Lock-style paths of the packages installed under `appDir`/node_modules, nested ones included. */
export function installedPackages(appDir: string, under = "node_modules"): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(appDir, under));
  } catch {
    return found;
  }
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const packages = name.startsWith("@") ? readdirSync(join(appDir, under, name)).map((inner) => `${name}/${inner}`) : [name];
    for (const pkg of packages) {
      const path = `${under}/${pkg}`;
      found.push(path, ...installedPackages(appDir, `${path}/node_modules`));
    }
  }
  return found;
}

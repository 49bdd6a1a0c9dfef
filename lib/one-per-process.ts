import "server-only";
/**
 * Things the app makes once per server process, not once per evaluation of the module that makes
 * them. `next dev` evaluates a module again when it, or a file it imports, is saved: a second
 * in-memory store would sign everyone out, and a second pool of codex processes would leave the
 * first one's processes running. In development (NODE_ENV=development) the value is kept on
 * globalThis, which survives those re-evaluations; anywhere else every call makes a new value
 * (production evaluates each module once, and tests want their own).
 */

const REGISTRY = Symbol.for("login-with-chatgpt.one-per-process");

interface Kept {
  key: string;
  value: unknown;
}

function registry(): Map<string, Kept> {
  const global = globalThis as { [REGISTRY]?: Map<string, Kept> };
  global[REGISTRY] ??= new Map();
  return global[REGISTRY];
}

/**
 * In development: the value kept under `name` while `key` (what it was made from, e.g. its
 * settings) stays the same; when the key changes, the old value is handed to `retire` and a new one
 * is made. Elsewhere: `make()`.
 */
export function onePerProcess<T>(name: string, key: string, make: () => T, retire?: (old: T) => void): T {
  if (process.env.NODE_ENV !== "development") return make();
  const kept = registry().get(name);
  if (kept && kept.key === key) return kept.value as T;
  if (kept) retire?.(kept.value as T);
  const value = make();
  registry().set(name, { key, value });
  return value;
}

/** `x.y.z` → numbers; anything else (a pre-release suffix, text, empty) → null. */
function parse(version: string): number[] | null {
  return /^\d+(\.\d+)*$/.test(version) ? version.split(".").map(Number) : null;
}

/**
 * Whether `version` is at least `minimum`, compared numerically part by part (`0.170.0` > `0.99.0`).
 * A missing or malformed `version` counts as older than everything, as the backend treats a missing
 * `version` header; a malformed `minimum` gates nothing.
 */
export function isVersionAtLeast(version: string | null | undefined, minimum: string): boolean {
  const given = version ? parse(version.trim()) : null;
  const floor = parse(minimum.trim()) ?? [0];
  if (!given) return false;
  for (let i = 0; i < Math.max(given.length, floor.length); i++) {
    const a = given[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

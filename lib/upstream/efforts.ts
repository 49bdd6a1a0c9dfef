/** Reasoning efforts from least to most. `ultra` is Codex's own (sent as `max`), never ours to send. */
const EFFORT_ORDER = ["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"];

/**
 * The effort to send for a model that lists `supported` efforts: `minimal` becomes the lowest listed
 * effort above it when the model does not take `minimal` (the newest models refuse it). Anything
 * else, or a model that lists nothing, is left as asked.
 */
export function effortForModel(effort: string, supported: readonly string[]): string {
  if (effort !== "minimal" || supported.length === 0 || supported.includes("minimal")) return effort;
  const above = EFFORT_ORDER.slice(EFFORT_ORDER.indexOf("minimal") + 1);
  return above.find((candidate) => candidate !== "ultra" && supported.includes(candidate)) ?? effort;
}

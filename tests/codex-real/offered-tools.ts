/**
 * The names of the tools a /responses request offers the model, in either dialect: the plain one's
 * top-level `tools`, or the lite one's `additional_tools` input item (codex groups its function and
 * custom tools there in a `functions` namespace). Hosted tools count by their type.
 */
export function offeredToolNames(body: unknown): string[] {
  const request = body as { tools?: unknown[]; input?: { type?: string; tools?: unknown[] }[] };
  const listed = [...(request.tools ?? []), ...(request.input ?? []).filter((item) => item.type === "additional_tools").flatMap((item) => item.tools ?? [])];
  return listed.flatMap((tool) => {
    const { type, name, tools } = tool as { type: string; name?: string; tools?: { name?: string; type: string }[] };
    return type === "namespace" ? (tools ?? []).map((inner) => inner.name ?? inner.type) : [name ?? type];
  });
}

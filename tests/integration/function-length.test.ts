/**
 * No long functions in the browser code: a function over 200 lines in components/ or lib/client/
 * holds too much state to follow (ConversationView had 456). Split it into a pure unit in
 * lib/client (with unit tests), a hook, or a smaller component. Agent voice (lib/agent-voice/,
 * every folder under it) holds 150: its live session juggles a process, a call and tool calls
 * whose confirmations race, and `startLiveSession` had 314 lines with the pending-call state
 * machine inside; that machine is now lib/agent-voice/pending-calls.ts, plain code with unit tests. Counted with the TypeScript parser
 * (test-support/function-lengths.ts); the failure names each function and where it starts.
 */
import { expect, it } from "vitest";
import { longFunctions, longFunctionsInText } from "@/test-support/function-lengths";

const LIMITS = [
  { folder: "components", maxLines: 200 },
  { folder: "lib/client", maxLines: 200 },
  { folder: "lib/agent-voice", maxLines: 150 },
];

for (const { folder, maxLines } of LIMITS) {
  it(`no function in ${folder}/ is longer than ${maxLines} lines`, () => {
    expect(longFunctions(folder, maxLines).map((found) => `${found.where} (${found.lines} lines)`)).toEqual([]);
  });
}

it("the count finds a long component, a long hook and a long callback inside it, by name", () => {
  // The folders above pass only if the count works: here it must find what it is shown.
  const body = (lines: number) => Array.from({ length: lines }, (_, index) => `  const line${index} = ${index};`).join("\n");
  const text = [
    `export function LongComponent() {\n${body(6)}\n  return <p>{line0}</p>;\n}`,
    `export const useLongHook = () => {\n  const handler = useCallback(() => {\n${body(6)}\n  }, []);\n  return handler;\n};`,
    "export function ShortOne() {\n  return 1;\n}",
  ].join("\n\n");
  const found = longFunctionsInText("components/example.tsx", text, 5).map((long) => `${long.where} (${long.lines})`);
  expect(found).toEqual(["components/example.tsx:1 LongComponent (9)", "components/example.tsx:11 useLongHook (11)", "components/example.tsx:12 handler (useCallback argument) (8)"]);
});

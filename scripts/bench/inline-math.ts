/**
 * `npm run bench:inline-math` (also the end of `npm run bench`): the chat's maths normaliser
 * (lib/client/inline-math.ts, the code the browser runs on every answer it renders, again at each
 * streamed update) on lines an answer or an imported file can hold. Prints the median of 20 runs per
 * input at 10k and 40k characters, and a 20k-character answer normalised at every 100 characters as
 * a stream renders it. Target: 40k characters well under 50 ms. Prints numbers; asserts nothing.
 */
import { performance } from "node:perf_hooks";
import { normalizeMathDelimiters } from "../../lib/client/inline-math";
import { formatTable, median } from "./stats";

const RUNS = 20;
const TARGET_MS = 50;

/** Each input: a line of one repeated piece, cut to the length asked. */
const INPUTS: [string, string][] = [
  ["`$a ` repeated (no span ever closes)", "$a "],
  ["`\\(a ` repeated (no span ever closes)", "\\(a "],
  ["`$x$ ` repeated (every span closes)", "$x$ "],
  ["`$5 and ` repeated (prices)", "$5 and "],
];

const line = (piece: string, length: number) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);

function timeMs(run: () => void): number {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    run();
    runs.push(performance.now() - started);
  }
  return median(runs);
}

function main(): void {
  // Warm the JIT up on the same shapes.
  for (const [, piece] of INPUTS) normalizeMathDelimiters(line(piece, 10_000));
  const rows: [string, string, string, string][] = [["Input", "10k characters (median ms)", "40k characters (median ms)", ""]];
  for (const [label, piece] of INPUTS) {
    const short = line(piece, 10_000);
    const long = line(piece, 40_000);
    const longMs = timeMs(() => normalizeMathDelimiters(long));
    rows.push([label, timeMs(() => normalizeMathDelimiters(short)).toFixed(2), longMs.toFixed(2), longMs < TARGET_MS ? `under ${TARGET_MS} ms` : `OVER ${TARGET_MS} ms`]);
  }
  const answer = line("$a ", 20_000);
  const streamed = timeMs(() => {
    for (let end = 100; end <= answer.length; end += 100) normalizeMathDelimiters(answer.slice(0, end));
  });
  rows.push(["A 20k-character `$a ` answer, normalised at every 100 characters (200 calls)", "—", "—", `${streamed.toFixed(1)} ms in all`]);
  console.log(`\nThe chat's maths normaliser (lib/client/inline-math.ts), ${RUNS} runs per figure; target: 40k characters under ${TARGET_MS} ms\n`);
  console.log(formatTable(rows));
}

main();

/**
 * `npm run bench:search`: the conversation search (lib/client/conversation-search.ts, the code the
 * browser runs) over 1,000 generated conversations of 20 turns each. Prints the time to build the
 * index, to re-index one changed conversation, and per query (median and 95th percentile of a mixed
 * set: common and rare words, two words, a word still being typed (its first four letters, where the
 * index treats it as a prefix everywhere, and its first three, where it is a prefix in titles and in
 * messages only when few words start so), a typo). Target: ≤ 50 ms per
 * query. Prints numbers; asserts nothing. BENCH_SEARCH_CONVERSATIONS and BENCH_SEARCH_TURNS change the size.
 */
import { performance } from "node:perf_hooks";
import { ConversationSearchIndex, type SearchableConversation } from "../../lib/client/conversation-search";
import { formatTable, median } from "./stats";

const CONVERSATIONS = Number(process.env.BENCH_SEARCH_CONVERSATIONS ?? 1_000);
const TURNS = Number(process.env.BENCH_SEARCH_TURNS ?? 20);
const QUERIES = 400;
const TARGET_MS = 50;

/** A small deterministic generator (mulberry32), so every run searches the same text. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(23);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

// A vocabulary of made-up words; a skewed pick makes some common and most rare, as in real text.
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "da", "gri", "mon", "tes", "bal", "cor", "fin", "lu", "sha", "ter", "wy"];
const VOCABULARY = Array.from({ length: 20_000 }, () => Array.from({ length: 2 + Math.floor(next() * 3) }, () => pick(SYLLABLES)).join(""));
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)]!;
const sentence = (words: number) => `${Array.from({ length: words }, word).join(" ")}.`;
const paragraph = (min: number, max: number) =>
  Array.from({ length: 1 + Math.floor(next() * 4) }, () => sentence(min + Math.floor(next() * (max - min)))).join(" ");

function conversation(index: number): SearchableConversation {
  const messages: SearchableConversation["messages"] = [];
  for (let turn = 0; turn < TURNS; turn += 1) {
    messages.push({ id: `c${index}-u${turn}`, role: "user", parts: [{ type: "text", text: paragraph(6, 20) }] });
    messages.push({ id: `c${index}-a${turn}`, role: "assistant", parts: [{ type: "text", text: `${paragraph(12, 30)}\n\n${paragraph(12, 30)}` }] });
  }
  return { id: `c${index}`, title: sentence(5).slice(0, 60), updatedAt: index, messages };
}

function queries(): string[] {
  const common = () => VOCABULARY[Math.floor(next() * 50)]!;
  const rare = () => VOCABULARY[5_000 + Math.floor(next() * 15_000)]!;
  const typo = (text: string) => `${text.slice(0, 2)}${text.slice(3)}`;
  const kinds = [
    () => common(),
    () => rare(),
    () => `${word()} ${word()}`,
    () => word().slice(0, 4),
    () => word().slice(0, 3),
    () => typo(word().padEnd(6, "a")),
  ];
  return Array.from({ length: QUERIES }, (_, i) => kinds[i % kinds.length]!());
}

/** Wall time and this process's CPU time (user + system) of one run, in ms. */
interface Timing {
  wall: number;
  cpu: number;
}

async function time<T>(run: () => T | Promise<T>): Promise<[T, Timing]> {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const value = await run();
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return [value, { wall, cpu: (cpu.user + cpu.system) / 1000 }];
}

const percentile = (values: number[], fraction: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

async function main(): Promise<void> {
  const data = Array.from({ length: CONVERSATIONS }, (_, i) => conversation(i));
  const words = data.reduce((sum, c) => sum + c.messages.reduce((n, m) => n + m.parts.map((p) => ("text" in p ? p.text : "")).join(" ").split(" ").length, 0), 0);
  const index = new ConversationSearchIndex();
  const [, build] = await time(() => index.sync(data));

  const changed = data.map((c, i) => (i === 500 ? { ...conversation(100_000), id: c.id, updatedAt: c.updatedAt + 1 } : c));
  const [, resync] = await time(() => index.sync(changed));

  const set = queries();
  for (const query of set.slice(0, 20)) index.search(query); // warm up the JIT
  const timings: Timing[] = [];
  let hits = 0;
  for (const query of set) {
    const [found, timing] = await time(() => index.search(query));
    hits += found.length;
    timings.push(timing);
  }
  const wall = timings.map((timing) => timing.wall);
  const cpu = timings.map((timing) => timing.cpu);

  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const verdict = (value: number) => (value <= TARGET_MS ? "met" : "MISSED");
  console.log(`${CONVERSATIONS} conversations × ${TURNS} turns, ${(words / 1e6).toFixed(2)} million words; ${QUERIES} queries, ${(hits / QUERIES).toFixed(1)} hits each on average`);
  // On a shared machine wall time includes waiting for a core; CPU time is what the search itself took.
  console.log(
    formatTable([
      ["Measure", "Wall time", "CPU time", `Target ≤ ${TARGET_MS} ms (wall)`],
      ["Per query, median", ms(median(wall)), ms(median(cpu)), verdict(median(wall))],
      ["Per query, 95th percentile", ms(percentile(wall, 0.95)), ms(percentile(cpu, 0.95)), verdict(percentile(wall, 0.95))],
      ["Per query, slowest", ms(Math.max(...wall)), ms(Math.max(...cpu)), ""],
      ["Build the index (first search of a session)", ms(build.wall), ms(build.cpu), ""],
      ["Re-index one changed conversation", ms(resync.wall), ms(resync.cpu), ""],
    ]),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * Every TypeScript block (```ts, ```tsx) in README.md and docs/*.md compiles against this
 * repository's own code, with tsconfig.json's options and its `@/*` paths. Each block is one module,
 * compiled as if it were a file at the repository's root (so `./lib/…` and `@/lib/…` both resolve),
 * from memory: nothing is written.
 *
 * Markers, on the lines right above a block's fence (in the Markdown source, not shown on GitHub):
 * - `<!-- typecheck-context: <code> -->` goes before the block's code: what a fragment assumes
 *   (`declare const request: Request;`, an import), so the fragment itself is checked.
 * - `<!-- typecheck: skip (<reason>) -->` leaves out a block that is not code, such as a listing of
 *   signatures. Few blocks have it, and each says why.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const documents = ["README.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

interface DocBlock {
  /** `docs/server.md:54`: the document and the line of the block's opening fence. */
  where: string;
  language: "ts" | "tsx";
  code: string;
  context: string[];
  skip?: string;
}

const SKIP = /^<!-- typecheck: skip \((.+)\) -->$/;
const CONTEXT = /^<!-- typecheck-context: (.+) -->$/;

/** The blocks of one Markdown document, with the markers of the comment lines right above each. */
function blocksOf(document: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^\s*```(ts|tsx|typescript)\s*$/.exec(lines[index]!);
    if (!fence) {
      // Any other fence: skip to its end, so a ```ts inside a longer block is not taken for one.
      const other = /^\s*(```+|~~~+)/.exec(lines[index]!);
      if (other) {
        const close = lines.findIndex((line, at) => at > index && line.trim().startsWith(other[1]!));
        index = close === -1 ? lines.length : close;
      }
      continue;
    }
    const end = lines.findIndex((line, at) => at > index && /^\s*```\s*$/.test(line));
    if (end === -1) throw new Error(`${document}:${index + 1}: a code block without its closing fence`);
    const block: DocBlock = {
      where: `${document}:${index + 1}`,
      language: fence[1] === "tsx" ? "tsx" : "ts",
      code: lines.slice(index + 1, end).join("\n"),
      context: [],
    };
    for (let above = index - 1; above >= 0 && /^<!--.*-->$/.test(lines[above]!.trim()); above--) {
      const comment = lines[above]!.trim();
      const skip = SKIP.exec(comment);
      const context = CONTEXT.exec(comment);
      if (skip) block.skip = skip[1];
      if (context) block.context.unshift(context[1]!);
    }
    blocks.push(block);
    index = end;
  }
  return blocks;
}

/** A block's module at the root: its context, its code, and `export {}` (a module even without an import). */
function moduleText(block: DocBlock): string {
  return [...block.context, block.code, "export {};", ""].join("\n");
}

function virtualPath(block: DocBlock): string {
  return join(root, `docs-block.${block.where.replace(/[^a-z0-9]+/gi, "-")}.${block.language}`);
}

/** The messages of every error in the given virtual files, each at its line in the Markdown document. */
function compile(blocks: DocBlock[]): Map<DocBlock, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error("tsconfig.json could not be read");
  const options: ts.CompilerOptions = { ...config.options, noEmit: true, incremental: false, tsBuildInfoFile: undefined };
  const files = new Map(blocks.map((block) => [virtualPath(block), block] as const));
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => (files.has(name) ? moduleText(files.get(name)!) : readFile.call(host, name));
  host.getSourceFile = (name, language, onError, create) => {
    const block = files.get(name);
    return block ? ts.createSourceFile(name, moduleText(block), language, true) : getSourceFile.call(host, name, language, onError, create);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const errors = new Map<DocBlock, string[]>();
  for (const [name, block] of files) {
    const source = program.getSourceFile(name)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    const [document, fenceLine] = block.where.split(":") as [string, string];
    errors.set(
      block,
      diagnostics.map((diagnostic) => {
        const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
        const inCode = line - block.context.length;
        const at = inCode >= 0 ? `${document}:${Number(fenceLine) + 1 + inCode}` : `${block.where} (its typecheck-context)`;
        return `${at}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      }),
    );
  }
  return errors;
}

const blocks = documents.flatMap((document) => blocksOf(document, readFileSync(join(root, document), "utf8")));
const checked = blocks.filter((block) => !block.skip);
// A block that must fail, compiled with the others: proves the check resolves `@/` and reads real exports.
const probe: DocBlock = {
  where: "probe:1",
  language: "ts",
  code: 'import { notExported } from "@/lib/agent-voice/tools";\nconst count: number = "one";',
  context: [],
};
let errors: Map<DocBlock, string[]>;

beforeAll(() => {
  errors = compile([...checked, probe]);
}, 120_000);

describe("TypeScript in README.md and docs/", () => {
  it("finds the blocks, and leaves out only a few, each saying why", () => {
    expect(checked.length).toBeGreaterThanOrEqual(15);
    const skipped = blocks.filter((block) => block.skip);
    expect(skipped.length).toBeLessThanOrEqual(6);
    for (const block of skipped) expect(block.skip!.length, block.where).toBeGreaterThan(10);
  });

  it("reports a wrong import and a wrong type (the check can fail)", () => {
    const found = errors.get(probe)!.join("\n");
    expect(found).toMatch(/probe:2: TS2305 .*notExported/);
    expect(found).toMatch(/probe:3: TS2322 /);
  });

  it.each(checked.map((block) => [block.where, block] as const))("%s compiles", (_where, block) => {
    expect(errors.get(block)).toEqual([]);
  });
});

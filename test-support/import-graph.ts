/**
 * The project's own import graph, read with the TypeScript parser: which of our files each file
 * loads when it runs. Type-only imports (`import type`, `export type … from`, `typeof import()`)
 * are left out, since they are erased before anything runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";

export const projectRoot = join(import.meta.dirname, "..");

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts", "/index.tsx"];
const SKIPPED_FOLDERS = new Set(["node_modules", ".git", "test-results", "playwright-report"]);

/** Repo-relative paths of the source files under `folder` (Next's build folders and node_modules left out). */
export function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (relativeFolder: string) => {
    for (const name of readdirSync(join(projectRoot, relativeFolder))) {
      if (SKIPPED_FOLDERS.has(name) || name.startsWith(".next")) continue;
      const path = relativeFolder === "." ? name : `${relativeFolder}/${name}`;
      if (statSync(join(projectRoot, path)).isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts|mjs)$/.test(name) && !name.endsWith(".d.ts")) found.push(path);
    }
  };
  walk(folder);
  return found.sort();
}

/** The file an import of ours resolves to (repo-relative), or undefined for a package. */
export function resolveImport(fromFile: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = join(dirname(fromFile), specifier);
  else return undefined;
  for (const extension of EXTENSIONS) {
    const candidate = join(projectRoot, base + extension);
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(projectRoot, candidate);
  }
  throw new Error(`${fromFile}: cannot resolve ${specifier}`);
}

function onlyTypes(elements: readonly { isTypeOnly: boolean }[] | undefined): boolean {
  return elements !== undefined && elements.length > 0 && elements.every((element) => element.isTypeOnly);
}

interface FileImports {
  /** Specifiers loaded when the file runs (static and dynamic), packages included. */
  runtime: string[];
  /** Whether the file's first statement is `import "server-only"`. */
  startsServerOnly: boolean;
}

/** What a file imports at run time. */
export function fileImports(file: string): FileImports {
  const text = readFileSync(join(projectRoot, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const runtime: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && onlyTypes(clause.namedBindings.elements)));
      if (!typeOnly) runtime.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && onlyTypes(node.exportClause.elements));
      if (!typeOnly) runtime.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) runtime.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const first = source.statements[0];
  const startsServerOnly =
    first !== undefined && ts.isImportDeclaration(first) && first.importClause === undefined && ts.isStringLiteral(first.moduleSpecifier) && first.moduleSpecifier.text === "server-only";
  return { runtime, startsServerOnly };
}

/** Every file of ours that `entries` load when they run, the entries included. */
export function runtimeClosure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|tsx|mts|mjs)$/.test(file)) continue; // JSON and the like import nothing
    for (const specifier of fileImports(file).runtime) {
      const target = resolveImport(file, specifier);
      if (target !== undefined && !seen.has(target)) pending.push(target);
    }
  }
  return seen;
}

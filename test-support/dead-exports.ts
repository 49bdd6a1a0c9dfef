/**
 * Exports no other file uses: a small ts-prune. Reads every source file of the project with the
 * TypeScript parser and counts, per exported name, the files that import it (by name, as `default`,
 * through `import * as`, `export … from`, `typeof import(…).Name`, or a dynamic `import()`, which
 * counts as using everything). A test's use counts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { projectRoot, resolveImport, sourceFiles } from "./import-graph";

/** Files whose exports a framework or a tool reads (Next's routes and pages, configs, entry points). */
function isFrameworkEntry(file: string): boolean {
  return (
    /(^|\/)app\//.test(file) || // Next's routes, pages and layouts (the app's and a fixture app's)
    /(^|\/)[^/]+\.config\.(ts|mjs)$/.test(file) ||
    /(^|\/)(instrumentation|proxy)\.ts$/.test(file) ||
    ["eslint-layers.mjs", "e2e/global-setup.ts"].includes(file) ||
    /\.(test|spec)\.tsx?$/.test(file)
  );
}

/**
 * The entry points adopters import from (README's "Using it from your code", docs/web-app.md,
 * docs/stores.md): their exports are the public API even where this repo does not use them.
 */
const PUBLIC_ENTRY_POINTS = ["lib/client/index.ts", "lib/server/index.ts", "lib/stores/index.ts"];

const ALL = "*";

interface FileFacts {
  exported: Set<string>;
  /** target file → names it uses there (`*` for all). */
  uses: Map<string, Set<string>>;
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
}

function hasDefaultModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
}

function factsOf(file: string): FileFacts {
  const source = ts.createSourceFile(file, readFileSync(join(projectRoot, file), "utf8"), ts.ScriptTarget.Latest, true);
  const exported = new Set<string>();
  const uses = new Map<string, Set<string>>();
  const markUsed = (specifier: string, name: string) => {
    const target = resolveImport(file, specifier);
    if (target === undefined) return;
    if (!uses.has(target)) uses.set(target, new Set());
    uses.get(target)!.add(name);
  };

  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (!clause) markUsed(specifier, ALL); // a side-effect import runs the module
      else {
        if (clause.name) markUsed(specifier, "default");
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) markUsed(specifier, ALL);
        if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) markUsed(specifier, (element.propertyName ?? element.name).text);
      }
    } else if (ts.isExportDeclaration(node)) {
      const specifier = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
      if (!node.exportClause) {
        if (specifier) markUsed(specifier, ALL);
      } else if (ts.isNamedExports(node.exportClause)) {
        for (const element of node.exportClause.elements) {
          exported.add(element.name.text);
          if (specifier) markUsed(specifier, (element.propertyName ?? element.name).text);
        }
      }
    } else if (ts.isExportAssignment(node)) {
      exported.add("default");
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) markUsed(argument.text, ALL);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const qualifier = node.qualifier;
      const first = qualifier && (ts.isIdentifier(qualifier) ? qualifier : qualifier.left);
      markUsed(node.argument.literal.text, first && ts.isIdentifier(first) ? first.text : ALL);
    } else if (hasExportModifier(node) && node.parent === source) {
      if (hasDefaultModifier(node)) exported.add("default");
      else if (ts.isVariableStatement(node)) {
        for (const declaration of node.declarationList.declarations) if (ts.isIdentifier(declaration.name)) exported.add(declaration.name.text);
      } else {
        const name = (node as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) exported.add(name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { exported, uses };
}

/** `file: name` for every export of ours that no other file uses. */
export function deadExports(): string[] {
  const rootFiles = readdirSync(projectRoot).filter((name) => /\.(ts|mts|mjs)$/.test(name) && !name.endsWith(".d.ts"));
  const folders = ["app", "components", "lib", "mock-upstream", "scripts", "test-support", "tests", "e2e"];
  const files = [...rootFiles, ...folders.flatMap((folder) => sourceFiles(folder))];
  const facts = new Map(files.map((file) => [file, factsOf(file)]));
  const used = new Map<string, Set<string>>();
  for (const [, { uses }] of facts) {
    for (const [target, names] of uses) {
      if (!used.has(target)) used.set(target, new Set());
      for (const name of names) used.get(target)!.add(name);
    }
  }
  const dead: string[] = [];
  for (const [file, { exported }] of facts) {
    if (isFrameworkEntry(file) || PUBLIC_ENTRY_POINTS.includes(file)) continue;
    const names = used.get(file) ?? new Set<string>();
    if (names.has(ALL)) continue;
    for (const name of exported) if (!names.has(name)) dead.push(`${file}: ${name}`);
  }
  return dead.sort();
}

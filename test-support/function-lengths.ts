/**
 * Long functions, found with the TypeScript parser: every function declaration, function
 * expression, arrow function, method, constructor and accessor under a folder, with its length in
 * lines from its first line to its last (a nested function counts inside the one around it, and on
 * its own as well).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { projectRoot, sourceFiles } from "./import-graph";

interface LongFunction {
  /** `path:line name`, so a failure says where to look. */
  where: string;
  lines: number;
}

/** The name a reader knows the function by: its own, or the variable, property or argument it is given to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) {
    // `useCallback(() => …)`, `forwardRef(function …)`: named after the variable the call is assigned to.
    const holder = parent.parent;
    const callee = parent.expression.getText();
    if (ts.isVariableDeclaration(holder)) return `${holder.name.getText()} (${callee} argument)`;
    return `${callee} argument`;
  }
  if (ts.isExportAssignment(parent)) return "default export";
  return "anonymous function";
}

/** The functions in `text` (the source of `file`) longer than `maxLines`. */
export function longFunctionsInText(file: string, text: string, maxLines: number): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > maxLines) found.push({ where: `${file}:${first + 1} ${nameOf(node as ts.FunctionLikeDeclaration)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions longer than `maxLines` in the source files under `folder`, tests included. */
export function longFunctions(folder: string, maxLines: number): LongFunction[] {
  return sourceFiles(folder).flatMap((file) => longFunctionsInText(file, readFileSync(join(projectRoot, file), "utf8"), maxLines));
}

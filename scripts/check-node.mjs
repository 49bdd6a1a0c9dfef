/**
 * The first step of `npm start`, `npm run dev` and `npm run demo`: on a Node.js older than
 * package.json's `engines.node`, one line that says so and how to fix it, and exit 1 (instead of
 * warnings followed by a stack trace from a missing API). Plain JavaScript, so an old Node runs it.
 *
 * Usage: node scripts/check-node.mjs [version]   (the version defaults to this Node's own)
 */
import { readFileSync } from "node:fs";

const engines = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const minimum = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim());
if (!minimum) {
  console.error(`scripts/check-node.mjs reads only ">=x.y.z" from package.json's engines.node, not "${engines}".`);
  process.exit(2);
}
const version = (process.argv[2] || process.versions.node).replace(/^v/, "");
const current = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
if (!current) {
  console.error(`scripts/check-node.mjs: "${version}" is not a Node.js version.`);
  process.exit(2);
}

/** Negative when a < b, component by component (major, minor, patch). */
function compare(a, b) {
  for (let i = 0; i < 3; i += 1) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return 0;
}

const needed = [1, 2, 3].map((i) => Number(minimum[i] || 0));
if (compare([1, 2, 3].map((i) => Number(current[i])), needed) < 0) {
  console.error(
    `This app needs Node.js ${engines.trim()}, and this is Node.js ${version}: install Node 24 (\`nvm install\` reads .nvmrc) and run it again.`,
  );
  process.exit(1);
}

/**
 * The layer rules: which of our own modules each part of the tree may import. An import "of ours" is
 * one that starts with "@/" or "."; packages are not checked here. Static imports, `export … from`
 * and dynamic `import()` all count. Used by eslint.config.mjs as the rule `layers/imports`.
 *
 * A layer applies to the files under `files` (a folder ending in "/", or one file). Test files
 * (*.test.ts) follow only the layers marked `tests: true`. `allow` lists everything a file may
 * import (its own folder included); `deny` lists what it may not. A layer with `scope` (a folder)
 * judges only the imports inside that folder (lib/server's feature folders among themselves).
 */
import { posix, relative } from "node:path";

const ROOT = import.meta.dirname;

const SERVER = "lib/server/";
/** lib/server's top-level files every feature folder may read: the resolved options and the context built from them. */
const SERVER_WIRING = ["lib/server/context.ts", "lib/server/options.ts"];

/**
 * A feature folder of lib/server: inside lib/server it imports only `folders` (its own among
 * them) and the wiring; outside it, whatever the layers below allow lib/.
 */
function serverFolder(folder, folders, why) {
  return { files: [`${SERVER}${folder}/`], scope: SERVER, allow: [...folders.map((name) => `${SERVER}${name}/`), ...SERVER_WIRING], why };
}

export const LAYERS = [
  {
    files: ["components/"],
    allow: ["components/", "lib/client/", "lib/shared/"],
    why: "components import only lib/client (the browser side), lib/shared's plain helpers and each other",
  },
  {
    files: ["lib/client/"],
    allow: ["lib/client/", "lib/upstream/", "lib/error-codes.ts", "lib/shared/"],
    why: "lib/client runs in the browser: besides itself, only lib/upstream's wire types and pure helpers, lib/shared and the error codes",
  },
  {
    files: ["lib/shared/"],
    allow: ["lib/shared/"],
    why: "lib/shared holds plain helpers the browser and the server both use (the base paths) and imports nothing else of ours",
  },
  {
    files: ["lib/upstream/"],
    allow: ["lib/upstream/"],
    why: "lib/upstream talks to the provider and imports nothing else of ours",
  },
  {
    files: ["lib/logger.ts", "lib/one-per-process.ts"],
    allow: [],
    why: "the logger and onePerProcess sit below lib/server and agent voice and import nothing of ours",
  },
  {
    files: ["lib/error-codes.ts"],
    allow: [],
    why: "the error codes are shared by the server and the browser and import nothing of ours",
  },
  {
    files: ["lib/server/http/"],
    scope: SERVER,
    allow: ["lib/server/http/"],
    why: "lib/server/http is the plumbing every route uses (router, replies, CSRF, bodies, cookies) and imports nothing of the features or the wiring",
  },
  serverFolder("session", ["http", "session"], "lib/server/session (the login session) sits below every feature: besides lib/server/http it imports none"),
  serverFolder("siwc", ["http", "session", "siwc"], "lib/server/siwc (the Sign in with ChatGPT flow) builds sessions: it imports lib/server/http and session only"),
  serverFolder("models", ["http", "session", "models"], "lib/server/models (the model backends and GET /models) imports lib/server/http and session only"),
  serverFolder(
    "responses",
    ["http", "session", "models", "history", "responses"],
    "lib/server/responses (POST /responses) calls the session's model backend (lib/server/models) with the person's own instructions (lib/server/history)",
  ),
  serverFolder("voice", ["http", "session", "voice"], "lib/server/voice (POST /realtime) imports lib/server/http and session only"),
  serverFolder("agent-voice", ["http", "session", "models", "voice", "agent-voice"], "lib/server/agent-voice checks models (lib/server/models) and shares the voice throttle (lib/server/voice)"),
  serverFolder("history", ["http", "session", "history"], "lib/server/history (the chat history routes) imports lib/server/http and session only"),
  {
    files: ["lib/agent-voice/"],
    deny: ["lib/server/"],
    why: "lib/server uses agent voice, never the other way round (the logger is lib/logger.ts)",
  },
  {
    files: ["lib/"],
    deny: ["test-support/", "mock-upstream/", "tests/", "e2e/", "scripts/"],
    why: "application code never imports test code, the mock or scripts",
  },
  {
    files: ["lib/"],
    tests: true,
    deny: ["tests/", "e2e/", "scripts/"],
    why: "a lib test may use test-support/ and the mock upstream; one that needs the integration harness belongs in tests/integration/",
  },
];

const isTestFile = (path) => /\.test\.tsx?$/.test(path);
const withoutExtension = (path) => path.replace(/\.(tsx?|mjs|js|json)$/, "");

/** Whether `path` (repo-relative, extension or not) is `entry` or inside it. */
function isUnder(path, entry) {
  return entry.endsWith("/") ? path.startsWith(entry) : withoutExtension(path) === withoutExtension(entry);
}

/** The repo-relative path an import of ours points at, or undefined for a package. */
export function importTarget(fromFile, specifier) {
  if (specifier.startsWith("@/")) return posix.normalize(specifier.slice(2));
  if (!specifier.startsWith(".")) return undefined;
  return posix.normalize(posix.join(posix.dirname(fromFile), specifier));
}

/** The first layer rule that forbids `fromFile` (repo-relative) importing `specifier`, or undefined. */
export function brokenLayer(fromFile, specifier) {
  const target = importTarget(fromFile, specifier);
  if (target === undefined) return undefined;
  const test = isTestFile(fromFile);
  return LAYERS.find((layer) => {
    if (Boolean(layer.tests) !== test) return false;
    if (!layer.files.some((entry) => isUnder(fromFile, entry))) return false;
    if (layer.scope && !isUnder(target, layer.scope)) return false;
    if (layer.allow && !layer.allow.some((entry) => isUnder(target, entry))) return true;
    return Boolean(layer.deny?.some((entry) => isUnder(target, entry)));
  });
}

const importsRule = {
  meta: {
    type: "problem",
    docs: { description: "Each part of the tree imports only the layers it may (eslint-layers.mjs)" },
    schema: [],
    messages: { layer: "{{file}} may not import {{specifier}}: {{why}} (eslint-layers.mjs)" },
  },
  create(context) {
    const file = relative(ROOT, context.filename).split("\\").join("/");
    if (file.startsWith("..")) return {};
    const check = (source) => {
      if (!source || typeof source.value !== "string") return;
      const layer = brokenLayer(file, source.value);
      if (layer) context.report({ node: source, messageId: "layer", data: { file, specifier: source.value, why: layer.why } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export const layersPlugin = { rules: { imports: importsRule } };

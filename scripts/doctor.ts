/**
 * `npm run doctor`: checks a deploy's configuration and prints a table (docs/doctor.md). Exit code 0
 * when no check fails, 1 when one does, 2 for a usage error.
 *
 *   npm run doctor -- [--production] [--live --url <deploy origin> (--cookie <cookie> | --cookie-file <path|->) [--model <slug>]]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import nextEnv from "@next/env";
import { runDoctor } from "../lib/doctor/run";
import { renderTable } from "../lib/doctor/table";
import { failed } from "../lib/doctor/types";

const USAGE =
  "Usage: npm run doctor -- [--production] [--live --url <deploy origin> (--cookie <cookie> | --cookie-file <path|->) [--model <slug>]]";

function usageError(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      production: { type: "boolean", default: false },
      live: { type: "boolean", default: false },
      url: { type: "string" },
      cookie: { type: "string" },
      "cookie-file": { type: "string" },
      model: { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  }).values;
} catch (error) {
  usageError(error instanceof Error ? error.message : String(error));
}
if (args.help) {
  process.stdout.write(`${USAGE}\nSee docs/doctor.md.\n`);
  process.exit(0);
}

const production = args.production || process.env.NODE_ENV === "production";
// The same .env files, in the same order, as `next start` (production) or `next dev` reads; set variables win.
const { loadedEnvFiles } = nextEnv.loadEnvConfig(join(import.meta.dirname, ".."), !production, { info() {}, error() {} });

let live;
if (args.live) {
  if (!args.url || !URL.canParse(args.url)) usageError("--live needs --url: the deploy's origin, e.g. https://chat.example.com");
  if (args.cookie && args["cookie-file"]) usageError("give --cookie or --cookie-file, not both");
  // A file (or - for stdin) keeps the cookie out of the shell history and the process list.
  const cookieFile = args["cookie-file"];
  const cookie = cookieFile ? readFileSync(cookieFile === "-" ? 0 : cookieFile, "utf8").trim() : args.cookie?.trim();
  if (!cookie) usageError("--live needs a signed-in session's cookie: --cookie-file <path|-> or --cookie <value>");
  live = { url: args.url, cookie, ...(args.model ? { model: args.model } : {}) };
}

const results = await runDoctor({ env: process.env, production, ...(live ? { live } : {}) });
const files = loadedEnvFiles.map((file) => file.path).join(", ") || "none";
process.stdout.write(`Rules: ${production ? "production" : "development"}. Env files read: ${files}.\n\n${renderTable(results)}\n`);
process.exit(failed(results) ? 1 : 0);

import "server-only";
import { optionsFromEnv, parseEnv, type ParsedEnv } from "@/lib/env-options";
import { resolveOptions, type ResolvedOptions } from "@/lib/server/options";
import type { CheckResult } from "./types";

interface Configuration {
  env: ParsedEnv;
  options: ResolvedOptions;
}

const SILENT = { info() {}, warn() {}, error() {} };

/**
 * The deploy's environment read exactly as the server reads it at start-up (lib/env-options.ts,
 * then the handler's own option checks): a row, and the configuration when it is valid.
 */
export function readConfiguration(env: Record<string, string | undefined>): { row: CheckResult; configuration?: Configuration } {
  try {
    const parsed = parseEnv(env);
    const options = resolveOptions({ ...optionsFromEnv(env), logger: SILENT });
    const set = Object.keys(env).filter((name) => /^LWC_/.test(name) && env[name]?.trim()).length;
    return {
      row: { check: "configuration", status: "ok", detail: `valid (${set} LWC_ variables set); client version ${options.upstream.clientVersion}` },
      configuration: { env: parsed, options },
    };
  } catch (error) {
    // Every message of the schema and the option checks names the variable, never its value.
    return { row: { check: "configuration", status: "fail", detail: error instanceof Error ? error.message : String(error) } };
  }
}

/**
 * Validates the fake app-server's messages (both directions) against the JSON schema the REAL
 * `codex app-server` generates (`generate-json-schema --experimental`), so the fake, and the
 * bridge talking to it, cannot drift from the binary's protocol. The schema is generated once
 * into a temp folder; the binary is installed into its cache folder first when missing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { cachedCodexPath } from "@/lib/agent-voice/codex-cache";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import type { FakeLogEntry } from "./control";

/** The pinned codex: the app's client version. */
const CODEX_VERSION = CLIENT_VERSION;

/** The pinned codex executable: $LWC_CODEX_COMMAND, else the cache folder (installed when missing). */
export function codexExecutable(): string {
  const fromEnv = process.env.LWC_CODEX_COMMAND?.trim();
  if (fromEnv) return fromEnv;
  const bin = cachedCodexPath();
  if (existsSync(bin)) return bin;
  const ensure = join(process.cwd(), "scripts", "ensure-codex.sh");
  if (!existsSync(ensure)) throw new Error(`the codex executable is missing (${bin}) and scripts/ensure-codex.sh is not there to install it`);
  return execFileSync("bash", [ensure], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
}

/** The generated schema folder (made once per machine boot, shared by test files). */
export function protocolSchemaDir(): string {
  const dir = join(tmpdir(), `lwc-codex-protocol-schema-${CODEX_VERSION}`);
  if (existsSync(join(dir, "ServerRequest.json"))) return dir;
  const staging = mkdtempSync(join(tmpdir(), "lwc-codex-schema-staging-"));
  execFileSync(codexExecutable(), ["app-server", "generate-json-schema", "--experimental", "--out", staging], { stdio: "ignore" });
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // Another test file won the race.
  }
  return dir;
}

export interface ProtocolValidator {
  /** One line per message that does not match the binary's schema (empty = all valid). */
  check(log: FakeLogEntry[]): string[];
}

export function loadProtocolValidator(): ProtocolValidator {
  const dir = protocolSchemaDir();
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const cache = new Map<string, ValidateFunction>();
  function schema(name: string): ValidateFunction | undefined {
    if (cache.has(name)) return cache.get(name);
    const file = [join(dir, `${name}.json`), join(dir, "v1", `${name}.json`), join(dir, "v2", `${name}.json`)].find(existsSync);
    if (!file) return undefined;
    const validate = ajv.compile(JSON.parse(readFileSync(file, "utf8")) as object);
    cache.set(name, validate);
    return validate;
  }
  /** method → a validator of its params, from a union file (ClientRequest.json, ServerNotification.json, …). */
  function paramsValidators(union: string): Map<string, { name: string; validate: () => ValidateFunction }> {
    const parsed = JSON.parse(readFileSync(join(dir, `${union}.json`), "utf8")) as {
      definitions: Record<string, unknown>;
      oneOf: { properties: { method: { enum: string[] }; params?: { $ref?: string } } }[];
    };
    const result = new Map<string, { name: string; validate: () => ValidateFunction }>();
    for (const variant of parsed.oneOf) {
      const ref = variant.properties.params?.$ref;
      const name = ref?.split("/").at(-1) ?? "";
      let compiled: ValidateFunction | undefined;
      const validate = () =>
        (compiled ??= ajv.compile(ref ? { $ref: ref, definitions: parsed.definitions } : { type: "null" }));
      result.set(variant.properties.method.enum[0]!, { name, validate });
    }
    return result;
  }
  const unions = {
    clientRequests: paramsValidators("ClientRequest"),
    clientNotifications: paramsValidators("ClientNotification"),
    serverRequests: paramsValidators("ServerRequest"),
    serverNotifications: paramsValidators("ServerNotification"),
  };
  const responseName = (paramsName: string) => paramsName.replace(/Params$/, "Response");

  function checkParams(union: Map<string, { validate: () => ValidateFunction }>, message: { method?: string; params?: unknown }, label: string): string[] {
    const entry = union.get(message.method!);
    if (!entry) return [`${label}: method not in the schema`];
    if (message.params === undefined) return entry.validate()(null) || entry.validate()({}) ? [] : [`${label}: params missing`];
    return errorsOf(entry.validate(), message.params, label);
  }

  function errorsOf(validate: ValidateFunction | undefined, value: unknown, label: string): string[] {
    if (!validate) return [`${label}: no schema found`];
    if (validate(value)) return [];
    return [`${label}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 300)}`];
  }

  return {
    check(log) {
      const problems: string[] = [];
      // Request ids are per process and per direction: remember each request's method to check its answer.
      const asked = new Map<string, string>();
      for (const entry of log) {
        const message = entry.message;
        if (!message || !entry.dir) continue;
        const fromClient = entry.dir === "in";
        if (typeof message.method === "string" && message.id !== undefined) {
          asked.set(`${entry.pid}:${entry.dir}:${message.id}`, message.method);
          problems.push(...checkParams(fromClient ? unions.clientRequests : unions.serverRequests, message, `${entry.dir} request ${message.method}`));
        } else if (typeof message.method === "string") {
          problems.push(
            ...checkParams(fromClient ? unions.clientNotifications : unions.serverNotifications, message, `${entry.dir} notification ${message.method}`),
          );
        } else {
          const requestDir = fromClient ? "out" : "in";
          const method = asked.get(`${entry.pid}:${requestDir}:${message.id}`);
          if (method === undefined) {
            problems.push(`${entry.dir} answer to an unknown request id ${String(message.id)}`);
            continue;
          }
          if (message.error !== undefined) {
            problems.push(...errorsOf(schema("JSONRPCError"), message, `${entry.dir} error answer to ${method}`));
            continue;
          }
          const params = (fromClient ? unions.serverRequests : unions.clientRequests).get(method)?.name;
          if (!params) {
            problems.push(`${entry.dir} answer to ${method}: method not in the schema`);
            continue;
          }
          problems.push(...errorsOf(schema(responseName(params)), message.result, `${entry.dir} result of ${method}`));
        }
      }
      return problems;
    },
  };
}

/**
 * The `config.toml` written into a live session's private CODEX_HOME.
 *
 *   codexConfigToml({ codexBaseUrl, issuerUrl, model?, chatgptBaseUrl?, sidebandBaseUrl? }): string
 *   codexUpstreamUrls(the same input): string[]   — the URLs that config has codex contact
 *
 * - codexBaseUrl: LWC_CODEX_BASE_URL (real: https://chatgpt.com/backend-api/codex)
 * - issuerUrl:    LWC_ISSUER_URL     (real: https://auth.openai.com)
 * - model:        the Codex model for the agent's turns; default: codex picks from /models
 * - chatgptBaseUrl / sidebandBaseUrl: only for local upstreams; by default derived from
 *   codexBaseUrl (`…/backend-api/` and its origin).
 *
 * Always: the lockdown (LOCKDOWN_SETTINGS, every built-in tool that configuration can switch off).
 * Only when either URL points away from the real hosts (demo, tests): the keys that keep the
 * binary on those URLs. With the real hosts nothing of that sort is written. Throws on a URL that
 * is not http(s). Pure: no I/O.
 */

import { CLIENT_VERSION } from "@/lib/upstream/config";

export const REAL_CODEX_BASE_URL = "https://chatgpt.com/backend-api/codex";
export const REAL_ISSUER_URL = "https://auth.openai.com";
/** Where codex 0.169.0 opens the realtime sideband when `experimental_realtime_ws_base_url` is not set. */
const REAL_SIDEBAND_BASE_URL = "https://api.openai.com";
/** codex's default `chatgpt_base_url` (account check, settings). */
const REAL_CHATGPT_BASE_URL = "https://chatgpt.com/backend-api/";

/** Our provider id. Not the built-in "openai": codex re-routes that one to the workspace origin. */
export const LOCAL_PROVIDER_ID = "lwc-upstream";

interface CodexConfigInput {
  codexBaseUrl: string;
  issuerUrl: string;
  model?: string;
  chatgptBaseUrl?: string;
  sidebandBaseUrl?: string;
}

type TomlValue = string | number | boolean;

interface LockdownSetting {
  /** Dotted key as in config.toml (`features.shell_tool`). */
  key: string;
  value: TomlValue;
  /** What it switches off. */
  effect: string;
}

/**
 * Where codex would keep its log database. codex 0.169.0 logs at TRACE into `<log_dir>/logs_2.sqlite`
 * whatever RUST_LOG says, sideband frames (the person's transcribed words) included. No folder can
 * ever exist inside /dev/null (for any user, root too), so it logs "failed to open logs db" and
 * runs without one: nothing spoken reaches the disk. Verified by tests/codex-real/live-session.test.ts.
 */
const NO_LOG_DIR = "/dev/null/lwc-no-logs";

/**
 * Verified against codex 0.169.0 and 0.171.0 by the real-binary tests (tests/codex-real/): the tools codex
 * offers the model are only our dynamic tools. docs/agent-voice-lockdown.md lists the same keys.
 */
export const LOCKDOWN_SETTINGS: readonly LockdownSetting[] = [
  { key: "approval_policy", value: "on-request", effect: "anything outside the sandbox asks first (and the bridge declines every ask)" },
  { key: "sandbox_mode", value: "read-only", effect: "commands, if any ran, could not write or reach the network" },
  { key: "web_search", value: "disabled", effect: "no web_search tool" },
  { key: "allow_login_shell", value: false, effect: "no login shell (no profile scripts) for commands" },
  { key: "project_doc_max_bytes", value: 0, effect: "no AGENTS.md read from the working directory" },
  { key: "check_for_update_on_startup", value: false, effect: "no update check" },
  { key: "history.persistence", value: "none", effect: "no message history file in CODEX_HOME" },
  {
    key: "log_dir",
    value: NO_LOG_DIR,
    effect: "no log database (logs_2.sqlite): its TRACE rows hold the person's transcribed words; a folder inside /dev/null can never be made, and codex then runs without it",
  },
  { key: "shell_environment_policy.inherit", value: "none", effect: "a command would inherit no environment variables" },
  { key: "features.shell_tool", value: false, effect: "no shell / exec_command tool" },
  { key: "features.unified_exec", value: false, effect: "no exec_command / write_stdin tools" },
  { key: "features.shell_snapshot", value: false, effect: "no snapshot of the server's shell" },
  { key: "features.view_image", value: false, effect: "no view_image tool (reads image files)" },
  { key: "features.image_generation", value: false, effect: "no image generation tool" },
  { key: "agents.enabled", value: false, effect: "no sub-agent tools (spawn_agent, multi_agent_v1, …)" },
  { key: "tools.experimental_request_user_input.enabled", value: false, effect: "no request_user_input tool" },
  { key: "tools.update_plan.enabled", value: false, effect: "no update_plan tool" },
  { key: "skills.include_instructions", value: false, effect: "no skill instructions (skills can run scripts)" },
  { key: "features.request_permissions_tool", value: false, effect: "no tool to ask for more permissions" },
  { key: "features.standalone_web_search", value: false, effect: "no standalone web search tool" },
  { key: "features.goals", value: false, effect: "no get_goal / create_goal / update_goal tools" },
  { key: "features.apps", value: false, effect: "no apps (connectors) MCP server" },
  { key: "features.plugins", value: false, effect: "no plugins (and no plugin sync from github.com)" },
  { key: "features.remote_plugin", value: false, effect: "no remote plugins" },
  { key: "features.hooks", value: false, effect: "no hooks (commands run on events)" },
  { key: "features.skill_search", value: false, effect: "no skill search tool" },
  { key: "features.skill_mcp_dependency_install", value: false, effect: "no MCP installs for skills" },
  { key: "features.tool_suggest", value: false, effect: "no tool suggestions / plugin installs" },
  { key: "features.sleep_tool", value: false, effect: "no sleep tool" },
  { key: "features.computer_use", value: false, effect: "no computer use" },
  { key: "features.browser_use", value: false, effect: "no browser tools" },
  { key: "features.browser_use_external", value: false, effect: "no external browser tools" },
  { key: "features.in_app_browser", value: false, effect: "no in-app browser" },
  { key: "features.workspace_dependencies", value: false, effect: "no workspace dependency installs" },
  { key: "features.memories", value: false, effect: "no memories written or read" },
];

function requireHttpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`codexConfigToml: ${name} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`codexConfigToml: ${name} must be http(s)`);
  return url;
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** TOML basic strings accept JSON's escapes. */
function tomlValue(value: TomlValue): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** Groups dotted keys into [tables]; top-level keys first. */
function renderToml(settings: readonly (readonly [string, TomlValue])[]): string {
  const tables = new Map<string, string[]>([["", []]]);
  for (const [key, value] of settings) {
    const dot = key.lastIndexOf(".");
    const table = dot < 0 ? "" : key.slice(0, dot);
    const name = dot < 0 ? key : key.slice(dot + 1);
    if (!tables.has(table)) tables.set(table, []);
    tables.get(table)!.push(`${name} = ${tomlValue(value)}`);
  }
  return [...tables]
    .map(([table, lines]) => (table === "" ? lines.join("\n") : `\n[${table}]\n${lines.join("\n")}`))
    .join("\n")
    .concat("\n");
}

function pointsAtRealHosts(codexBaseUrl: string, issuerUrl: string): boolean {
  return withoutTrailingSlash(codexBaseUrl) === REAL_CODEX_BASE_URL && withoutTrailingSlash(issuerUrl) === REAL_ISSUER_URL;
}

/** The three URLs the local-upstream keys write, derived from codexBaseUrl unless given. */
function localUpstreamUrls(input: CodexConfigInput): { codexBaseUrl: string; chatgptBaseUrl: string; sidebandBaseUrl: string } {
  const codexBase = requireHttpUrl("codexBaseUrl", input.codexBaseUrl);
  const codexBaseUrl = withoutTrailingSlash(codexBase.href);
  const chatgptBaseUrl = input.chatgptBaseUrl ?? `${codexBaseUrl.replace(/\/codex$/, "")}/`;
  requireHttpUrl("chatgptBaseUrl", chatgptBaseUrl);
  const sidebandBaseUrl = withoutTrailingSlash(input.sidebandBaseUrl ?? codexBase.origin);
  requireHttpUrl("sidebandBaseUrl", sidebandBaseUrl);
  return { codexBaseUrl, chatgptBaseUrl, sidebandBaseUrl };
}

/** The keys that keep codex on a local upstream (and its side traffic off). */
function localUpstreamSettings(input: CodexConfigInput): [string, TomlValue][] {
  const { codexBaseUrl, chatgptBaseUrl, sidebandBaseUrl } = localUpstreamUrls(input);
  return [
    ["model_provider", LOCAL_PROVIDER_ID],
    ["chatgpt_base_url", chatgptBaseUrl.endsWith("/") ? chatgptBaseUrl : `${chatgptBaseUrl}/`],
    ["experimental_realtime_ws_base_url", sidebandBaseUrl],
    [`model_providers.${LOCAL_PROVIDER_ID}.name`, LOCAL_PROVIDER_ID],
    [`model_providers.${LOCAL_PROVIDER_ID}.base_url`, codexBaseUrl],
    [`model_providers.${LOCAL_PROVIDER_ID}.wire_api`, "responses"],
    [`model_providers.${LOCAL_PROVIDER_ID}.requires_openai_auth`, true],
    // What codex's built-in provider sends on every call (its own version); the backend gates models on it.
    [`model_providers.${LOCAL_PROVIDER_ID}.http_headers.version`, CLIENT_VERSION],
    ["analytics.enabled", false],
  ];
}

export function codexConfigToml(input: CodexConfigInput): string {
  requireHttpUrl("codexBaseUrl", input.codexBaseUrl);
  requireHttpUrl("issuerUrl", input.issuerUrl);
  const model: [string, TomlValue][] = input.model?.trim() ? [["model", input.model.trim()]] : [];
  const local = pointsAtRealHosts(input.codexBaseUrl, input.issuerUrl) ? [] : localUpstreamSettings(input);
  // apps/plugins/remote_plugin are in the lockdown anyway. Analytics is only forced off for local
  // upstreams (where it would try to reach chatgpt.com); with the real hosts it stays codex's choice.
  return renderToml([...model, ...local, ...LOCKDOWN_SETTINGS.map((s) => [s.key, s.value] as const)]);
}

/**
 * Every URL the config returned by codexConfigToml(input) has codex contact: the upstream's two,
 * and the account and sideband bases (the ones written for a local upstream; codex's own defaults
 * with the real hosts). The agent sandbox's egress proxy lets codex reach exactly these hosts.
 */
export function codexUpstreamUrls(input: CodexConfigInput): string[] {
  requireHttpUrl("codexBaseUrl", input.codexBaseUrl);
  requireHttpUrl("issuerUrl", input.issuerUrl);
  if (pointsAtRealHosts(input.codexBaseUrl, input.issuerUrl)) {
    return [REAL_CODEX_BASE_URL, REAL_ISSUER_URL, REAL_CHATGPT_BASE_URL, REAL_SIDEBAND_BASE_URL];
  }
  const { codexBaseUrl, chatgptBaseUrl, sidebandBaseUrl } = localUpstreamUrls(input);
  return [codexBaseUrl, input.issuerUrl, chatgptBaseUrl, sidebandBaseUrl];
}

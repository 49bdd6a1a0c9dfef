import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_VERSION } from "@/lib/upstream/config";
import { codexConfigToml, codexUpstreamUrls, LOCAL_PROVIDER_ID, LOCKDOWN_SETTINGS, REAL_CODEX_BASE_URL, REAL_ISSUER_URL } from "./codex-config";

const LOCAL = { codexBaseUrl: "http://127.0.0.1:4010/backend-api/codex", issuerUrl: "http://127.0.0.1:4010" };
const REAL = { codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: REAL_ISSUER_URL };

/** Tiny reader for the TOML we write: [table] headers and `key = value` lines; values as JSON. */
function readToml(text: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  let table = "";
  for (const line of text.split("\n")) {
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      table = `${header[1]}.`;
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+) = (.+)$/.exec(line);
    if (pair) values[`${table}${pair[1]}`] = JSON.parse(pair[2]!);
    else expect(line).toBe("");
  }
  return values;
}

describe("codexConfigToml", () => {
  it("with a local upstream: a custom provider on that URL, chatgpt_base_url, the sideband base, analytics off", () => {
    const config = readToml(codexConfigToml({ ...LOCAL, model: "gpt-5.5" }));
    expect(config).toMatchObject({
      model: "gpt-5.5",
      model_provider: LOCAL_PROVIDER_ID,
      chatgpt_base_url: "http://127.0.0.1:4010/backend-api/",
      experimental_realtime_ws_base_url: "http://127.0.0.1:4010",
      [`model_providers.${LOCAL_PROVIDER_ID}.base_url`]: "http://127.0.0.1:4010/backend-api/codex",
      [`model_providers.${LOCAL_PROVIDER_ID}.wire_api`]: "responses",
      [`model_providers.${LOCAL_PROVIDER_ID}.requires_openai_auth`]: true,
      // The built-in provider sends its version on every call; the backend gates models on it.
      [`model_providers.${LOCAL_PROVIDER_ID}.http_headers.version`]: CLIENT_VERSION,
      "analytics.enabled": false,
      "features.apps": false,
      "features.plugins": false,
      "features.remote_plugin": false,
    });
    expect(LOCAL_PROVIDER_ID).not.toBe("openai");
  });

  it("a local issuer alone is enough to keep the binary local; explicit chatgpt and sideband bases win", () => {
    const config = readToml(
      codexConfigToml({
        codexBaseUrl: "http://localhost:9000/backend-api/codex/",
        issuerUrl: REAL_ISSUER_URL,
        chatgptBaseUrl: "http://localhost:9001/backend-api",
        sidebandBaseUrl: "http://localhost:9002/",
      }),
    );
    expect(config).toMatchObject({
      chatgpt_base_url: "http://localhost:9001/backend-api/",
      experimental_realtime_ws_base_url: "http://localhost:9002",
      [`model_providers.${LOCAL_PROVIDER_ID}.base_url`]: "http://localhost:9000/backend-api/codex",
    });
    expect(readToml(codexConfigToml({ codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: "http://127.0.0.1:4010" })).model_provider).toBe(LOCAL_PROVIDER_ID);
  });

  it("with the real hosts: no provider, URL, sideband or analytics keys at all, and no model unless given", () => {
    const text = codexConfigToml(REAL);
    expect(text).not.toMatch(/model_provider|chatgpt_base_url|experimental_realtime|analytics|127\.0\.0\.1|^model =/m);
    expect(codexConfigToml({ ...REAL, codexBaseUrl: `${REAL_CODEX_BASE_URL}/` })).toBe(text);
  });

  it("always writes every lockdown setting, with its value", () => {
    for (const urls of [LOCAL, REAL]) {
      const config = readToml(codexConfigToml(urls));
      for (const setting of LOCKDOWN_SETTINGS) expect(config[setting.key], setting.key).toBe(setting.value);
    }
    const keys = LOCKDOWN_SETTINGS.map((s) => s.key);
    expect(keys).toEqual(expect.arrayContaining(["sandbox_mode", "web_search", "features.shell_tool", "features.unified_exec", "agents.enabled"]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("docs/agent-voice-lockdown.md lists every lockdown key", () => {
    const doc = readFileSync(new URL("../../docs/agent-voice-lockdown.md", import.meta.url), "utf8");
    for (const setting of LOCKDOWN_SETTINGS) expect(doc, setting.key).toContain(`\`${setting.key}\``);
  });

  it("refuses URLs that are not http(s)", () => {
    expect(() => codexConfigToml({ ...LOCAL, codexBaseUrl: "file:///etc" })).toThrow(/codexBaseUrl must be http/);
    expect(() => codexConfigToml({ ...LOCAL, issuerUrl: "not a url" })).toThrow(/issuerUrl is not a URL/);
    expect(() => codexConfigToml({ ...LOCAL, sidebandBaseUrl: "javascript:alert(1)" })).toThrow(/sidebandBaseUrl/);
  });

  it("escapes strings (a quote in a model name cannot add keys)", () => {
    const config = readToml(codexConfigToml({ ...LOCAL, model: 'x"\nsandbox_mode = "danger-full-access' }));
    expect(config.model).toBe('x"\nsandbox_mode = "danger-full-access');
    expect(config.sandbox_mode).toBe("read-only");
  });
});

describe("codexUpstreamUrls (the sandbox's allow-list)", () => {
  it("with a local upstream: exactly the URLs the config writes, and the issuer", () => {
    const config = readToml(codexConfigToml(LOCAL));
    expect(codexUpstreamUrls(LOCAL)).toEqual([
      config[`model_providers.${LOCAL_PROVIDER_ID}.base_url`],
      LOCAL.issuerUrl,
      config.chatgpt_base_url,
      config.experimental_realtime_ws_base_url,
    ]);
    const moved = { ...LOCAL, chatgptBaseUrl: "http://127.0.0.1:5000/api/", sidebandBaseUrl: "http://127.0.0.1:6000" };
    expect(codexUpstreamUrls(moved)).toEqual([LOCAL.codexBaseUrl, LOCAL.issuerUrl, moved.chatgptBaseUrl, moved.sidebandBaseUrl]);
  });

  it("with the real hosts: codex's own defaults, the realtime sideband on api.openai.com included", () => {
    expect(codexUpstreamUrls(REAL)).toEqual([REAL_CODEX_BASE_URL, REAL_ISSUER_URL, "https://chatgpt.com/backend-api/", "https://api.openai.com"]);
  });

  it("refuses what codexConfigToml refuses", () => {
    expect(() => codexUpstreamUrls({ ...LOCAL, codexBaseUrl: "file:///etc" })).toThrow(/codexBaseUrl must be http/);
  });
});

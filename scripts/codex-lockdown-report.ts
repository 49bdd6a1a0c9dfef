/**
 * `npx tsx scripts/codex-lockdown-report.ts`: for each lockdown setting, run the real codex
 * app-server against the mock with every OTHER setting on, and print which tools codex then offers
 * the model (beyond the baseline). This is how docs/agent-voice-lockdown.md was verified.
 * Offline: the mock on 127.0.0.1, the local-upstream keys always on.
 */
import { codexConfigToml, LOCKDOWN_SETTINGS } from "../lib/agent-voice/codex-config";
import { startMockUpstream, type MockUpstream } from "../mock-upstream/server";
import { signInThroughMock } from "../mock-upstream/sign-in";
import { AppServerDriver } from "../tests/codex-real/app-server-driver";
import { codexExecutable } from "../test-support/fake-app-server/protocol-schema";

const DYNAMIC_TOOL = { type: "function", name: "get_current_time", description: "time", inputSchema: { type: "object", properties: {} } };

/** The config without one `key = value` line (dotted key: the line inside its [table]). */
function withoutSetting(toml: string, dottedKey: string): string {
  const dot = dottedKey.lastIndexOf(".");
  const table = dot < 0 ? "" : dottedKey.slice(0, dot);
  const name = dot < 0 ? dottedKey : dottedKey.slice(dot + 1);
  let current = "";
  return toml
    .split("\n")
    .filter((line) => {
      const header = /^\[(.+)\]$/.exec(line);
      if (header) current = header[1]!;
      return !(current === table && line.startsWith(`${name} = `));
    })
    .join("\n");
}

async function offeredTools(codexPath: string, mock: MockUpstream, accessToken: string, configToml: string): Promise<string[]> {
  mock.reset();
  const driver = new AppServerDriver({ codexPath, configToml });
  try {
    await driver.initialize();
    await driver.call("account/login/start", { type: "chatgptAuthTokens", accessToken, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
    const started = await driver.call("thread/start", { ephemeral: true, cwd: driver.workDir, dynamicTools: [DYNAMIC_TOOL] });
    const threadId = (started.thread as { id: string }).id;
    await driver.call("turn/start", { threadId, input: [{ type: "text", text: "hi", text_elements: [] }] });
    await driver.waitForNotification("turn/completed", 30_000);
    const request = mock.requests({ path: "/backend-api/codex/responses" }).at(-1);
    const tools = (request?.body as { tools?: { name?: string; type: string }[] } | undefined)?.tools ?? [];
    return tools.map((tool) => tool.name ?? tool.type).sort();
  } finally {
    await driver.close();
  }
}

async function main(): Promise<void> {
  const codexPath = codexExecutable();
  const mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  try {
    const { access_token: token } = await signInThroughMock(mock);
    const full = codexConfigToml({ codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer, model: "gpt-5.5" });
    let offlineOnly = full;
    for (const setting of LOCKDOWN_SETTINGS) offlineOnly = withoutSetting(offlineOnly, setting.key);
    const baseline = await offeredTools(codexPath, mock, token, full);
    console.log(`with the whole lockdown:  ${baseline.join(", ")}`);
    console.log(`with no lockdown at all:  ${(await offeredTools(codexPath, mock, token, offlineOnly)).join(", ")}`);
    console.log("\n| key | tools offered when only this key is left out |\n|---|---|");
    for (const setting of LOCKDOWN_SETTINGS) {
      const tools = await offeredTools(codexPath, mock, token, withoutSetting(full, setting.key));
      const extra = tools.filter((tool) => !baseline.includes(tool));
      console.log(`| \`${setting.key}\` | ${extra.length > 0 ? extra.join(", ") : "(none)"} |`);
    }
  } finally {
    await mock.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

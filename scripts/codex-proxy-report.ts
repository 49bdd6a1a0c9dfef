/**
 * `npx tsx --conditions=react-server scripts/codex-proxy-report.ts`: does the real codex app-server send every connection it
 * makes through the standard proxy variables? This is how docs/agent-voice.md#its-own-network was
 * measured. For each set of variables it runs one whole agent-voice session against the mock on
 * 127.0.0.1 (login, thread, realtime start with a WebRTC offer, the sideband WebSocket, a handoff
 * whose turn tries the /responses WebSocket first and then calls a tool), with the proxy variables
 * pointing at the app's own egress proxy (allowing only the mock) and NO_PROXY unset, under
 * `strace -f -e trace=connect,sendto,sendmsg,sendmmsg`. It prints what the proxy saw, what the mock saw, and
 * every IP address codex connected or sent to (a DNS query included) that was NOT the proxy. The last runs use the real hosts' configuration
 * (the allow-list still only the mock: codex gets no further than its first connection) to see
 * which variables an https:// upstream follows. Offline throughout: nothing but the mock is allowed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codexConfigToml, REAL_CODEX_BASE_URL, REAL_ISSUER_URL } from "../lib/agent-voice/codex-config";
import { targetOfUrl } from "../lib/agent-voice/sandbox/egress-allow-list";
import { createEgressProxy } from "../lib/agent-voice/sandbox/egress-proxy";
import { SIDEBAND_IN, SIDEBAND_PATH } from "../mock-upstream/codex";
import { startMockUpstream, type MockUpstream, type RecordedRequest } from "../mock-upstream/server";
import { signInThroughMock } from "../mock-upstream/sign-in";
import { AppServerDriver, declineEverything } from "../tests/codex-real/app-server-driver";
import { loopbackOffer } from "../tests/codex-real/loopback-offer";
import { codexExecutable } from "../test-support/fake-app-server/protocol-schema";

const TOOL = { type: "function", name: "get_current_time", description: "time", inputSchema: { type: "object", properties: {} } };
const VARIANTS: Record<string, string[]> = {
  "HTTPS_PROXY, HTTP_PROXY, ALL_PROXY (and lower case)": ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"],
  "HTTP_PROXY only": ["HTTP_PROXY"],
  "HTTPS_PROXY only": ["HTTPS_PROXY"],
  "ALL_PROXY only": ["ALL_PROXY"],
};

const sidebandFrame = (type: string) => (r: RecordedRequest) =>
  r.method === SIDEBAND_IN && r.path === SIDEBAND_PATH && (r.body as { type?: string } | undefined)?.type === type;

interface Run {
  completed: string;
  proxied: string[];
  refused: string[];
  mockSaw: string[];
  direct: string[];
}

/** `responsesWebSocket`: the provider also says it supports the /responses WebSocket (the built-in provider does), so codex tries it first. */
/** `["a", "b", "a"]` → `["a ×2", "b"]`. */
function counted(items: string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, count]) => (count > 1 ? `${item} ×${count}` : item));
}

async function session(
  codexPath: string,
  mock: MockUpstream,
  accessToken: string,
  variables: string[],
  setup: { realHosts?: boolean; responsesWebSocket?: boolean; noProxy?: string } = {},
): Promise<Run> {
  mock.reset();
  const proxied: string[] = [];
  const refused: string[] = [];
  const proxy = createEgressProxy({ allow: [targetOfUrl(mock.url)], onForwarded: (r) => proxied.push(r), onRefused: (r) => refused.push(r) });
  await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
  const proxyPort = (proxy.server.address() as AddressInfo).port;
  const env: Record<string, string> = Object.fromEntries(variables.map((name) => [name, `http://127.0.0.1:${proxyPort}`]));
  if (setup.noProxy) env.NO_PROXY = setup.noProxy;
  const traceDir = mkdtempSync(join(tmpdir(), "lwc-proxy-report-"));
  const trace = join(traceDir, "connect.log");
  const urls = setup.realHosts ? { codexBaseUrl: REAL_CODEX_BASE_URL, issuerUrl: REAL_ISSUER_URL } : { codexBaseUrl: mock.codexBaseUrl, issuerUrl: mock.issuer };
  const driver = new AppServerDriver({
    codexPath,
    configToml: setup.responsesWebSocket
      ? codexConfigToml({ ...urls, model: "gpt-5.5" }).replace("requires_openai_auth = true", "requires_openai_auth = true\nsupports_websockets = true")
      : codexConfigToml({ ...urls, model: "gpt-5.5" }),
    env,
    // connect, and sendto/sendmsg: musl's resolver sends its DNS queries without connecting.
    prefix: ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", trace],
    onServerRequest: (m) => (m.method === "item/tool/call" ? { contentItems: [{ type: "inputText", text: "12:00" }], success: true } : declineEverything(m)),
  });
  const offer = await loopbackOffer();
  let completed = "the whole session";
  try {
    await driver.initialize();
    await driver.call("account/login/start", { type: "chatgptAuthTokens", accessToken, chatgptAccountId: "acct_demo", chatgptPlanType: "plus" });
    const login = await driver.waitForNotification("account/login/completed", 20_000);
    if (!(login.params as { success?: boolean }).success) throw new Error(`login failed: ${JSON.stringify(login.params)}`);
    const started = await driver.call("thread/start", { ephemeral: true, approvalPolicy: "on-request", sandbox: "read-only", cwd: driver.workDir, dynamicTools: [TOOL] });
    const threadId = (started.thread as { id: string }).id;
    await driver.call("thread/realtime/start", { threadId, outputModality: "audio", transport: { type: "webrtc", sdp: offer.sdp } });
    await driver.waitForNotification("thread/realtime/sdp", 20_000);
    await mock.waitForRequest(sidebandFrame("session.update"), 20_000);
    mock.codex.queueToolCalls([{ name: "get_current_time", arguments: {} }]);
    mock.codex.requestHandoff({ transcript: "What time is it?" });
    await mock.waitForRequest(sidebandFrame("conversation.handoff.append"), 30_000);
  } catch (error) {
    completed = `stopped: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`;
  } finally {
    await driver.close();
    await offer.close();
    await proxy.close();
  }
  const inet = readFileSync(trace, "utf8")
    .split("\n")
    .filter((line) => /sin6?_port=htons\(/.test(line));
  rmSync(traceDir, { recursive: true, force: true });
  const direct = inet
    .filter((line) => !line.includes(`sin_port=htons(${proxyPort})`))
    .map((line) => /sin6?_port=htons\((\d+)\).*?(inet_addr\("[^"]+"\)|inet_pton\([^)]*\))/.exec(line)?.slice(1).join(" ") ?? line.slice(0, 120));
  const mockSaw = counted(mock.requests().map((r) => `${r.method} ${r.path}`));
  return { completed, proxied: counted(proxied), refused: counted(refused), mockSaw, direct };
}

function print(title: string, run: Run): void {
  console.log(`\n## ${title}\n`);
  console.log(`- completed: ${run.completed}`);
  console.log(`- through the proxy: ${run.proxied.join(", ") || "nothing"}`);
  console.log(`- refused by the proxy: ${run.refused.join(", ") || "nothing"}`);
  console.log(`- connects or sends NOT to the proxy: ${run.direct.join(", ") || "none"}`);
  console.log(`- the mock saw: ${run.mockSaw.join(", ") || "nothing"}`);
}

async function main(): Promise<void> {
  const codexPath = codexExecutable();
  const mock = await startMockUpstream({ streamChunkDelayMs: 0 });
  try {
    const { access_token: token } = await signInThroughMock(mock);
    const every = Object.values(VARIANTS)[0]!;
    for (const [title, variables] of Object.entries(VARIANTS)) print(title, await session(codexPath, mock, token, variables));
    print("every variable, and the provider tries the /responses WebSocket first", await session(codexPath, mock, token, every, { responsesWebSocket: true }));
    print("every variable, and NO_PROXY=127.0.0.1", await session(codexPath, mock, token, every, { noProxy: "127.0.0.1" }));
    // Not HTTP_PROXY alone here: codex then goes to an https:// host directly, starting with a DNS lookup.
    for (const [title, variables] of [["every variable", every], ["HTTPS_PROXY only", ["HTTPS_PROXY"]], ["ALL_PROXY only", ["ALL_PROXY"]]] as const) {
      print(`the real hosts' configuration, ${title} (the proxy allows only the mock)`, await session(codexPath, mock, token, [...variables], { realHosts: true }));
    }
  } finally {
    await mock.close();
  }
}

await main();

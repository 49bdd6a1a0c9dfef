import "server-only";
import { normalizeAppBasePath } from "@/lib/shared/base-path";
import { deploymentProblems } from "@/lib/deploy-checks";
import { checkCodexBinary } from "./codex-binary";
import { readConfiguration } from "./configuration";
import { liveChecks, type LiveOptions } from "./live";
import { checkSandbox } from "./sandbox";
import { checkSecret } from "./secret";
import { checkStore } from "./store";
import type { CheckResult } from "./types";
import { checkReachable, type UpstreamTarget } from "./upstream-urls";

export interface DoctorOptions {
  /** The deploy's environment (the script: process.env after the .env files, as Next loads them). */
  env: Record<string, string | undefined>;
  /** Production rules: a secret and a shared store are required. */
  production: boolean;
  /** With a signed-in session's cookie: the deploy's own API, called as a browser would. */
  live?: LiveOptions;
  /** Per call, for the reachability checks and the live session and models. Default 10 s. */
  timeoutMs?: number;
}

const CONFIGURATION_ROWS = ["secret", "store", "agent sandbox", "codex binary", "issuer URL", "codex base URL", "verification URL"];
const LIVE_ROWS = ["live: session", "live: models", "live: reply"];

/** Every check, in the table's order. Nothing is signed in and nothing is written but one probe key. */
export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { row, configuration } = readConfiguration(options.env);
  if (!configuration) {
    const skip = (check: string): CheckResult => ({ check, status: "skip", detail: "needs a valid configuration" });
    return [row, ...CONFIGURATION_ROWS.map(skip), ...(options.live ? LIVE_ROWS.map(skip) : [])];
  }
  const { env, options: resolved } = configuration;
  const targets: UpstreamTarget[] = [
    { check: "issuer URL", url: `${resolved.upstream.issuer}/.well-known/openid-configuration` },
    { check: "codex base URL", url: `${resolved.upstream.codexBaseUrl}/models?client_version=${encodeURIComponent(resolved.upstream.clientVersion)}` },
    { check: "verification URL", url: resolved.upstream.verificationUrl },
  ];
  if (resolved.signIn.siwc) {
    // Sign in with ChatGPT (LWC_SIGN_IN has siwc): its issuer's discovery document and its API (401 without a sign-in).
    targets.push(
      { check: "SIWC issuer", url: `${resolved.signIn.siwc.issuer}/.well-known/openid-configuration` },
      { check: "SIWC API base", url: `${resolved.signIn.siwc.apiBase}/models` },
    );
  }
  if (resolved.realtime.enabled && [...resolved.realtime.transports].some((transport) => transport !== "codex")) {
    targets.push({ check: "ChatGPT URL", url: resolved.realtime.chatgptUrl });
  }
  // The server's own deploy guard, with production rules when the doctor is asked for them.
  const problems = deploymentProblems({ ...options.env, NODE_ENV: options.production ? "production" : "development" });
  const [store, sandbox, codex, ...reachable] = await Promise.all([
    checkStore(resolved.store, options.production, env.LWC_ALLOW_MEMORY_STORE === "1"),
    checkSandbox(resolved.agentVoice),
    checkCodexBinary(resolved.agentVoice?.command, resolved.upstream.clientVersion, timeoutMs),
    ...targets.map((target) => checkReachable(target, timeoutMs)),
  ]);
  // The page's own prefix for the API: {LWC_BASE_PATH}{LWC_API_BASE_PATH} (lib/shared/base-path.ts).
  const apiPath = `${normalizeAppBasePath(env.LWC_BASE_PATH)}${env.LWC_API_BASE_PATH}`;
  const live = options.live ? await liveChecks(options.live, apiPath, timeoutMs) : [];
  const secret = checkSecret(env.LWC_SECRET, problems.includes("ephemeral_secret"));
  return [row, secret, store!, sandbox!, codex!, ...reachable, ...live];
}

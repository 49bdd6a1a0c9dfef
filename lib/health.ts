import "server-only";
import { deploymentProblems } from "@/lib/deploy-checks";
import { modelAccessEnabled, providerHandler } from "@/lib/provider-app";

/** Set once: the environment does not change while the server runs. */
const setupProblems = deploymentProblems(process.env);

/**
 * The answer of `GET /api/health` (app/api/health/route.ts), for uptime checks and the test harness:
 * 200 `{status: "ok", store: "ok", modelAccess, agentVoice}` when all is well. `status: "degraded"`
 * adds `reasons`: `store_unavailable` (the session store does not answer: 503, `store:
 * "unavailable"`), and in production `memory_store` (sessions in this process's memory, without
 * LWC_ALLOW_MEMORY_STORE=1) and `ephemeral_secret` (no LWC_SECRET): the server still serves, so
 * those stay 200. `agentVoice`: `off`, `sandboxed`, `vercel` (a Vercel Sandbox microVM per session),
 * `unsandboxed` (LWC_AGENT_SANDBOX=off) or `unavailable` (its sandbox cannot start; the rest of the
 * app is unaffected, so the status stays 200). `agentVoiceLimits` (while agent voice can start):
 * how each codex process's memory and process caps hold, `cgroup`, `rlimit` or `vm`. Names no host, key or secret.
 */
export async function healthResponse(): Promise<Response> {
  const [store, agentVoice, agentVoiceLimits] = await Promise.all([
    providerHandler.checkStore(),
    providerHandler.agentVoiceState(),
    providerHandler.agentVoiceLimits(),
  ]);
  const reasons = [...(store === "ok" ? [] : ["store_unavailable"]), ...setupProblems];
  return Response.json(
    {
      status: reasons.length === 0 ? "ok" : "degraded",
      store: store === "ok" ? "ok" : "unavailable",
      modelAccess: modelAccessEnabled ? "on" : "off",
      agentVoice,
      ...(agentVoiceLimits ? { agentVoiceLimits } : {}),
      ...(reasons.length > 0 ? { reasons } : {}),
    },
    { status: store === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}

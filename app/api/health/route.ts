import { modelAccessEnabled, providerHandler } from "@/lib/provider-app";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Health for uptime checks and the test harness: 200 `{status: "ok", store: "ok", …}` when the
 * session store answers, 503 `{status: "degraded", store: "unavailable", …}` when it does not.
 * `agentVoice`: `off`, `sandboxed`, `unsandboxed` (LWC_AGENT_SANDBOX=off) or `unavailable` (its
 * sandbox cannot start; the rest of the app is unaffected, so the status stays 200).
 * Names no host, key or secret.
 */
export async function GET(): Promise<Response> {
  const [store, agentVoice] = await Promise.all([providerHandler.checkStore(), providerHandler.agentVoiceState()]);
  return Response.json(
    {
      status: store,
      store: store === "ok" ? "ok" : "unavailable",
      modelAccess: modelAccessEnabled ? "on" : "off",
      agentVoice,
    },
    { status: store === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}

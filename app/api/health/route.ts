import { modelAccessEnabled, providerHandler } from "@/lib/provider-app";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Health for uptime checks and the test harness: 200 `{status: "ok", store: "ok", …}` when the
 * session store answers, 503 `{status: "degraded", store: "unavailable", …}` when it does not.
 * Names no host, key or secret.
 */
export async function GET(): Promise<Response> {
  const store = await providerHandler.checkStore();
  return Response.json(
    {
      status: store,
      store: store === "ok" ? "ok" : "unavailable",
      modelAccess: modelAccessEnabled ? "on" : "off",
    },
    { status: store === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}

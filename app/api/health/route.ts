export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Liveness probe: Playwright and the test harness wait on it before they start. */
export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}

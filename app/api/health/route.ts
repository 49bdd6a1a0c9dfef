import { connection } from "next/server";
import { healthResponse } from "@/lib/health";

/**
 * GET /api/health (lib/health.ts). Answered per request, never a snapshot taken at build time:
 * `connection()` says so with or without `cacheComponents` (which refuses `export const dynamic`).
 */
export async function GET(): Promise<Response> {
  await connection();
  return healthResponse();
}

/**
 * The client's address for the per-address login limit: the first X-Forwarded-For entry (the
 * original client as the platform's proxy saw it), else X-Real-IP, else "unknown" (all such
 * requests then share one bucket).
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  if (forwarded) return forwarded;
  const realIp = request.headers.get("x-real-ip")?.trim();
  return realIp ? realIp : "unknown";
}

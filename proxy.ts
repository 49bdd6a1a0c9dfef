import { NextResponse, type NextRequest } from "next/server";

/** The methods any route of this app answers; anything else (TRACE, PROPFIND, ...) is a plain 405. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function plain(text: string, status: number, headers: Record<string, string> = {}): NextResponse {
  return new NextResponse(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/**
 * Framework edges the routes never see: an unknown method is answered 405 here, and a path with a
 * malformed percent-escape (`%ff`) a plain 404, where the framework itself would answer 500.
 */
export function proxy(request: NextRequest): NextResponse {
  if (!KNOWN_METHODS.has(request.method.toUpperCase())) {
    return plain("Method Not Allowed", 405, { allow: [...KNOWN_METHODS].join(", ") });
  }
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return plain("Not Found", 404);
  }
  return NextResponse.next();
}

export const config = { matcher: "/api/:path*" };

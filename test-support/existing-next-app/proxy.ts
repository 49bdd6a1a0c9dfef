import { NextResponse, type NextRequest } from "next/server";

/** This app's own rule: an old address moved. */
export function proxy(request: NextRequest) {
  if (request.nextUrl.pathname === "/old-home") return NextResponse.redirect(new URL("/", request.url));
  return NextResponse.next();
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};

import type { NextConfig } from "next";
import { normalizeAppBasePath } from "./lib/client/base-path";
import { STATIC_SECURITY_HEADERS } from "./lib/security-headers";

// The one base-path setting: Next's basePath, and (inlined for server and browser code alike)
// the prefix of the session service's URLs. See lib/client/base-path.ts.
const basePath = normalizeAppBasePath(process.env.LWC_BASE_PATH);

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  ...(basePath ? { basePath } : {}),
  // A second build (the base-path e2e run) goes to its own folder instead of replacing `.next`.
  ...(process.env.LWC_DIST_DIR?.trim() ? { distDir: process.env.LWC_DIST_DIR.trim() } : {}),
  env: { LWC_BASE_PATH: basePath },
  async headers() {
    return [{ source: "/:path*", headers: STATIC_SECURITY_HEADERS }];
  },
  // The dev-tools badge sits over the message box's controls on a phone; the demo runs `next dev`.
  devIndicators: false,
};

export default nextConfig;

import type { NextConfig } from "next";
import { apiRewrites } from "./lib/api-rewrites";
import { normalizeApiBasePath, normalizeAppBasePath } from "./lib/client/base-path";
import { STATIC_SECURITY_HEADERS } from "./lib/security-headers";

// The two path settings, read at build time and inlined for server and browser code alike (see
// lib/client/base-path.ts): LWC_BASE_PATH is Next's basePath; LWC_API_BASE_PATH is where the API
// answers below it, rewritten onto the route folder app/api/provider (lib/api-rewrites.ts).
const basePath = normalizeAppBasePath(process.env.LWC_BASE_PATH);
const apiBasePath = normalizeApiBasePath(process.env.LWC_API_BASE_PATH);

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  ...(basePath ? { basePath } : {}),
  // A second build (the base-path e2e run) goes to its own folder instead of replacing `.next`.
  ...(process.env.LWC_DIST_DIR?.trim() ? { distDir: process.env.LWC_DIST_DIR.trim() } : {}),
  env: { LWC_BASE_PATH: basePath, LWC_API_BASE_PATH: apiBasePath },
  async rewrites() {
    return apiRewrites(apiBasePath);
  },
  async headers() {
    return [{ source: "/:path*", headers: STATIC_SECURITY_HEADERS }];
  },
  // The dev-tools badge sits over the message box's controls on a phone; the demo runs `next dev`.
  devIndicators: false,
};

export default nextConfig;

import type { NextConfig } from "next";
import { apiRewrites, callbackRedirects } from "./lib/api-rewrites";
import { normalizeApiBasePath, normalizeAppBasePath } from "./lib/shared/base-path";
import { STATIC_SECURITY_HEADERS } from "./lib/security-headers";

// The two path settings, read at build time and inlined for server and browser code alike (see
// lib/shared/base-path.ts): LWC_BASE_PATH is Next's basePath; LWC_API_BASE_PATH is where the API
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
  // Sign in with ChatGPT's callback, fixed at the site's root, reaches app/auth/callback under LWC_BASE_PATH.
  async redirects() {
    return callbackRedirects(basePath);
  },
  async headers() {
    return [
      { source: "/:path*", headers: STATIC_SECURITY_HEADERS },
      // A shared chat's page is for the people given its link, not for search engines.
      { source: "/share/:path*", headers: [{ key: "X-Robots-Tag", value: "noindex, nofollow" }] },
    ];
  },
  // In the browser, the AI SDK's default provider (the Vercel AI Gateway) is a stand-in that throws:
  // the app never calls it, and it would add about 20 KB gzipped to the chat screen (lib/client/no-gateway.ts).
  turbopack: { resolveAlias: { "@ai-sdk/gateway": { browser: "./lib/client/no-gateway.ts" } } },
  // The dev-tools badge sits over the message box's controls on a phone; the demo runs `next dev`.
  devIndicators: false,
  // Sign in with ChatGPT needs the page on 127.0.0.1 (its loopback callback), and `next dev` serves
  // its dev resources (hot reload) only to localhost unless told: the demo's page moves there.
  allowedDevOrigins: ["127.0.0.1"],
  // Loaded by Node, not bundled: the same @next/env that read the .env files at start-up, so agent
  // voice's sandbox can ask it which it read (lib/agent-voice/sandbox/env-files.ts); and the embedded
  // history database (PGlite), which loads its WebAssembly and data files from its own package folder
  // at run time. (`pg` is external by Next's own list.)
  serverExternalPackages: ["@next/env", "@electric-sql/pglite"],
  // The history's SQL migrations are read at run time (lib/history/database.ts): traced into the
  // API route's function, so a serverless deploy has them.
  outputFileTracingIncludes: {
    "/api/provider/[...path]": ["./lib/history/migrations/**"],
    "/api/provider/responses": ["./lib/history/migrations/**"],
  },
};

export default nextConfig;

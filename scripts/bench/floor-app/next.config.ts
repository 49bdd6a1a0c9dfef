import { createRequire } from "node:module";
import { join } from "node:path";
import type { NextConfig } from "next";

// The product's settings (headers, rewrites, redirects), so Next does the same work for a request
// here as in the product. Next compiles this file to CommonJS and runs it from a string, where a
// relative import would resolve from the working folder: the product's config is loaded by path.
const load = createRequire(join(__dirname, "next.config.ts"));
const productConfig = (load("../../../next.config.ts") as { default: NextConfig }).default;

// Its own build folder (git-ignored like every /.next-*), and nothing of the product's to trace.
const floorConfig: NextConfig = { ...productConfig, distDir: "../../../.next-bench-floor", outputFileTracingIncludes: {} };

export default floorConfig;

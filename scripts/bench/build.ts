import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * The production build the bench runs: `.next`, or LWC_DIST_DIR when set (exported, so next build,
 * next start and the floor check all use the same folder). Builds it when it is missing.
 */
export function ensureProductionBuild(): string {
  const distDir = process.env.LWC_DIST_DIR?.trim() || ".next";
  if (!existsSync(join(distDir, "BUILD_ID"))) {
    console.log(`No production build in ${distDir} yet: running \`next build\`…`);
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit" });
    if (build.status !== 0) throw new Error("next build failed");
  }
  return distDir;
}

import { readdirSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { startCluster } from "./cluster";

/** The redis-server processes this test process started (its children), from /proc. */
function childRedisServers(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return parent === process.pid && stat.includes("(redis-server)");
      } catch {
        return false; // Gone while we looked.
      }
    })
    .map(Number);
}

it("a cluster whose app instances cannot start leaves no Redis, bridge or mock behind", async () => {
  await expect(startCluster({ LWC_DIST_DIR: ".next-that-was-never-built" })).rejects.toThrow(/No production build/);
  expect(childRedisServers()).toEqual([]);
});

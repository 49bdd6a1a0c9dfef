/**
 * The container recipe, read as text: the properties docs/deploy.md's "In a container" promises. Each
 * expectation names a line a careless edit could drop. `npm run test:container` (tests/container/)
 * builds the image with podman and checks the running container.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const dockerignore = readFileSync(join(root, ".dockerignore"), "utf8").split("\n").map((line) => line.trim());
/** Instruction lines, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
const stages = instructions.filter((line) => line.startsWith("FROM "));
const runtime = instructions.slice(instructions.lastIndexOf(stages.at(-1)!));

describe("Dockerfile", () => {
  it("is multi-stage on Node 24 (.nvmrc), and the image that runs is the last stage", () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(instructions[0]).toBe("ARG NODE_IMAGE=node:24-bookworm-slim");
    expect(readFileSync(join(root, ".nvmrc"), "utf8").trim()).toBe("24");
    expect(stages.at(-1)).toBe("FROM ${NODE_IMAGE} AS runtime");
  });

  it("builds with npm ci and next build, and keeps only production dependencies", () => {
    expect(instructions).toContain("RUN npm ci --no-audit --no-fund");
    expect(instructions.some((line) => line.startsWith("RUN npm run build") && line.includes("npm prune --omit=dev"))).toBe(true);
  });

  it("installs the pinned codex through scripts/ensure-codex.sh and points LWC_CODEX_COMMAND at it", () => {
    expect(instructions).toContain("RUN LWC_CODEX_CACHE_DIR=/opt/codex bash scripts/ensure-codex.sh");
    expect(runtime).toContain("COPY --from=codex /opt/codex /opt/codex");
    expect(runtime.join("\n")).toContain("LWC_CODEX_COMMAND=/opt/codex/node_modules/.bin/codex");
  });

  it("runs as the unprivileged node user, with bubblewrap and tini, tini as PID 1 signalling the whole group", () => {
    const apt = runtime.find((line) => line.includes("apt-get install"));
    expect(apt).toMatch(/\bbubblewrap\b/);
    expect(apt).toMatch(/\btini\b/);
    expect(runtime).toContain("USER node");
    expect(runtime.indexOf("USER node")).toBeGreaterThan(runtime.findIndex((line) => line.startsWith("COPY --from=build /app/.next")));
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "-g", "--"]');
    // next start itself as tini's child: no npm or shell in between to swallow a signal.
    expect(runtime.at(-1)).toBe('CMD ["node", "node_modules/next/dist/bin/next", "start", "-H", "0.0.0.0", "-p", "3000"]');
  });

  it("gives the build LWC_API_BASE_PATH as a build argument (next build inlines it and writes its rewrite)", () => {
    const build = instructions.slice(instructions.indexOf("FROM deps AS build"), instructions.indexOf(stages[stages.indexOf("FROM deps AS build") + 1]!));
    expect(build).toContain("ARG LWC_API_BASE_PATH=");
    expect(build.find((line) => line.startsWith("ENV "))).toContain("LWC_API_BASE_PATH=${LWC_API_BASE_PATH}");
    expect(build.findIndex((line) => line.startsWith("ENV "))).toBeLessThan(build.findIndex((line) => line.startsWith("RUN npm run build")));
  });

  it("is production, and checks /api/health (under the base path when there is one)", () => {
    expect(runtime.join("\n")).toMatch(/ENV NODE_ENV=production/);
    expect(runtime.find((line) => line.startsWith("HEALTHCHECK"))).toContain("(process.env.LWC_BASE_PATH || '') + '/api/health'");
  });
});

describe(".dockerignore", () => {
  it("keeps local env files, the local chat history (and the demo's kept secret), installed and built output and git out of the build context", () => {
    for (const entry of ["node_modules", ".next", ".next-*", ".git", ".env", ".env.*", "!.env.example", ".ci/node", ".data"]) {
      expect(dockerignore, entry).toContain(entry);
    }
  });
});

describe("agent-voice-seccomp.json, the seccomp profile beside the Dockerfile", () => {
  const profile = JSON.parse(readFileSync(join(root, "agent-voice-seccomp.json"), "utf8")) as {
    defaultAction: string;
    syscalls: { names: string[]; action: string }[];
  };
  const refused = profile.syscalls.filter((rule) => rule.action !== "SCMP_ACT_ALLOW").flatMap((rule) => rule.names);

  it("allows what bubblewrap needs: namespaces, mount and pivot_root", () => {
    expect(profile.defaultAction).toBe("SCMP_ACT_ALLOW");
    for (const call of ["clone", "clone3", "unshare", "setns", "mount", "umount2", "pivot_root"]) expect(refused, call).not.toContain(call);
  });

  it("refuses what a container never needs", () => {
    for (const call of ["init_module", "finit_module", "kexec_load", "reboot", "bpf", "keyctl", "open_by_handle_at", "io_uring_setup"]) {
      expect(refused, call).toContain(call);
    }
  });

  it("is the profile docs/deploy.md's docker run line names", () => {
    expect(readFileSync(join(root, "docs", "deploy.md"), "utf8")).toContain("--security-opt seccomp=agent-voice-seccomp.json");
  });
});

/**
 * The container test's podman: scripts/container/podman.sh (this machine's storage and settings), the
 * containers it runs, and the `run` lines docs/deploy.md gives people.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "@/test-support/free-port";

export const projectRoot = join(import.meta.dirname, "..", "..");
const PODMAN = join(projectRoot, "scripts", "container", "podman.sh");

/** Runs podman; resolves with its stdout, rejects with its stderr. */
export function podman(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PODMAN, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`podman ${args.join(" ")}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** The image scripts/container/test.sh built from the Dockerfile. */
export function imageUnderTest(): string {
  const image = process.env.CONTAINER_TEST_IMAGE;
  if (!image) throw new Error("CONTAINER_TEST_IMAGE is not set: run `npm run test:container`, which builds the image first.");
  return image;
}

/**
 * The `--security-opt` values of the `<engine> run` line in docs/deploy.md's code blocks (continuation
 * lines joined, quotes dropped), and every other flag it passes, for the test to refuse `--privileged`.
 */
export function documentedRunLine(engine: "podman" | "docker"): { securityOpts: string[]; flags: string[] } {
  const markdown = readFileSync(join(projectRoot, "docs", "deploy.md"), "utf8");
  const line = markdown
    .replace(/\\\n/g, " ")
    .split("\n")
    .find((text) => text.trim().startsWith(`${engine} run `));
  if (!line) throw new Error(`docs/deploy.md has no \`${engine} run\` line`);
  const words = line.replace(/\s+#.*$/, "").trim().split(/\s+/).map((word) => word.replace(/^'(.*)'$/, "$1"));
  const securityOpts = words.flatMap((word, index) => (word === "--security-opt" ? [words[index + 1]!] : []));
  return { securityOpts, flags: words.filter((word) => word.startsWith("--")) };
}

interface ProcessRow {
  user: string;
  hostPid: number;
  command: string;
}

export interface RunningContainer {
  name: string;
  url: string;
  /** Every process in the container, as the host sees it (podman top). */
  processes(): Promise<ProcessRow[]>;
  running(): Promise<boolean>;
  logs(): Promise<string>;
}

/** Ports: CONTAINER_TEST_APP_PORT (then +1, +2 for the next containers) when set, otherwise free ones. */
let nextAppPort = Number(process.env.CONTAINER_TEST_APP_PORT) || 0;
async function appPort(): Promise<number> {
  return nextAppPort ? nextAppPort++ : freePort();
}

/**
 * Starts the image detached on the host's network (so the app reaches the mock on the host's
 * loopback), with `securityOpts` and `env`. The image's own command, `next start`, with the address
 * moved from 0.0.0.0:3000 to 127.0.0.1 and a free port: on the host's network it must not listen
 * beyond loopback.
 */
export async function runContainer(options: { image: string; name: string; securityOpts: string[]; env: Record<string, string> }): Promise<RunningContainer> {
  const port = await appPort();
  const args = ["run", "--detach", "--name", options.name, "--network", "host"];
  for (const opt of options.securityOpts) args.push("--security-opt", opt);
  for (const [key, value] of Object.entries(options.env)) args.push("--env", `${key}=${value}`);
  args.push(options.image, "node", "node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port));
  await podman(...args);
  return {
    name: options.name,
    url: `http://127.0.0.1:${port}`,
    async processes() {
      const table = (await podman("top", options.name, "user", "hpid", "args")).trim().split("\n").slice(1);
      return table.map((row) => {
        const [user, hostPid, ...command] = row.trim().split(/\s+/);
        return { user: user!, hostPid: Number(hostPid), command: command.join(" ") };
      });
    },
    async running() {
      return (await podman("inspect", "--format", "{{.State.Running}}", options.name)).trim() === "true";
    },
    logs: () => podman("logs", options.name),
  };
}

/** Polls /api/health until it answers (the server is up), failing early if the container exits. */
export async function untilHealthy(container: RunningContainer): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const answer = await fetch(`${container.url}/api/health`).then(
      async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }),
      () => undefined,
    );
    if (answer) return answer;
    if (!(await container.running())) throw new Error(`the container exited before answering: ${await container.logs()}`);
    if (Date.now() > deadline) throw new Error(`no /api/health answer within 90 s: ${await container.logs()}`);
    // Polling a condition (the server answering), not waiting in place of an event.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

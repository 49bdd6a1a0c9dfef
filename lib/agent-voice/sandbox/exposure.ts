import "server-only";
/**
 * What the sandbox must never show, and the check that it does not: the app's folder (the server's
 * working folder), the server user's home, and every env file the app read with its folder. A
 * shown path that is one of them or holds one makes agent voice unavailable instead of exposing it.
 * Paths are compared as the host resolves them (a bind shows a link's target).
 */
import { homedir } from "node:os";
import { dirname } from "node:path";
import type { VisiblePath } from "./command-files";
import { envFilesRead } from "./env-files";
import { hostRealPath } from "./visible-paths";

interface ProtectedPath {
  path: string;
  /** For the log line: "the app's folder", "an env file the app read". */
  what: string;
}

/** Why a shown path is refused, for the log line, and what the operator can do about it. */
interface Exposure {
  reason: string;
  fix: string;
}

export function protectedPaths(): ProtectedPath[] {
  return [
    { path: process.cwd(), what: "the app's folder" },
    { path: homedir(), what: "the server user's home" },
    ...envFilesRead().flatMap((file) => [
      { path: file, what: "an env file the app read" },
      { path: dirname(file), what: "the folder of an env file the app read" },
    ]),
  ];
}

function isUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`) || folder === "/";
}

const FIXES: Record<VisiblePath["source"], (shown: string) => string> = {
  extra: (shown) => `Remove ${shown} from LWC_AGENT_SANDBOX_READONLY_PATHS, or list a folder that holds only what the codex command needs.`,
  command: () =>
    "Install the codex command (LWC_CODEX_COMMAND) and its interpreter in a folder of their own, outside the app's folder " +
    "(for example npm install --prefix /opt/codex @openai/codex).",
  system: (shown) => `Deploy the app outside ${shown}: the sandbox shows that system folder to every codex process.`,
  network: (shown) =>
    `Keep ${shown} apart from the app's folder, the home and the env files: the sandbox's egress relay runs with the ` +
    "server's node binary, and each process's egress folder lies in its home under the temp folder (TMPDIR).",
};

/** The first shown path that reveals a protected one, or undefined when none does. */
export function findExposure(shown: VisiblePath[], hidden: ProtectedPath[] = protectedPaths()): Exposure | undefined {
  for (const visible of shown) {
    const host = hostRealPath(visible.host);
    for (const { path, what } of hidden) {
      const real = hostRealPath(path);
      if (isUnder(real, host)) {
        return { reason: `it would show ${visible.host}, which holds ${what} (${path})`, fix: FIXES[visible.source](visible.host) };
      }
    }
  }
  return undefined;
}

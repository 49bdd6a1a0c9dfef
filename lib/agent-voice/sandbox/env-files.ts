import "server-only";
/**
 * The .env files the app read at start-up. Next reads them with @next/env (`next start` in the
 * app's folder: .env.production.local, .env.local, .env.production, .env) and keeps the list;
 * next.config.ts leaves @next/env out of the server bundle, so asking it here gets Next's own
 * answer, with no second read. Nothing is asked when Next loaded no env file (it marks the
 * environment once it has): then there is none to protect, and a server that is not Next (a test,
 * a custom server) has its environment left as it is.
 */
import nextEnv from "@next/env";
import { resolve } from "node:path";

const quiet = { info() {}, error() {} };

/** Absolute paths of the env files the app read; they are named relative to the app's folder, the server's working folder. */
export function envFilesRead(): string[] {
  if (process.env.__NEXT_PROCESSED_ENV !== "true") return [];
  const { loadedEnvFiles } = nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV === "development", quiet);
  return loadedEnvFiles.map((file) => resolve(process.cwd(), file.path));
}

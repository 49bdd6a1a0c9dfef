import "server-only";
/**
 * Where the chat history lives, from the environment (docs/history.md):
 *
 * - `LWC_CHAT_HISTORY=browser`: nowhere on the server; browsers keep their own chats.
 * - `DATABASE_URL`, else `POSTGRES_URL` (what Vercel's Marketplace Postgres sets): Postgres.
 * - neither, on Vercel (`VERCEL=1`: no lasting disk): nowhere on the server.
 * - neither, on a long-lived server: the embedded database in `LWC_DATA_DIR` (default `.data`
 *   in the app's folder), made on first start.
 */
import { resolve } from "node:path";
import type { HistoryLocation } from "./database";

type Env = Record<string, string | undefined>;

type HistorySetting =
  | { on: true; location: HistoryLocation }
  | { on: false; reason: "turned_off" | "no_database_on_vercel" };

export const DEFAULT_DATA_DIR = ".data";

const value = (text: string | undefined) => (text?.trim() ? text.trim() : undefined);

/** A postgres:// or postgresql:// URL. */
export function isPostgresUrl(text: string): boolean {
  return URL.canParse(text) && ["postgres:", "postgresql:"].includes(new URL(text).protocol);
}

export function historySettingFromEnv(env: Env, appFolder = process.cwd()): HistorySetting {
  if (value(env.LWC_CHAT_HISTORY)?.toLowerCase() === "browser") return { on: false, reason: "turned_off" };
  const url = value(env.DATABASE_URL) ?? value(env.POSTGRES_URL);
  if (url) return { on: true, location: { engine: "postgres", url } };
  if (env.VERCEL?.trim() === "1") return { on: false, reason: "no_database_on_vercel" };
  return { on: true, location: { engine: "embedded", dataDir: resolve(appFolder, value(env.LWC_DATA_DIR) ?? DEFAULT_DATA_DIR) } };
}

/** One line for the start-up log: where chats are kept (never the database URL: it may hold a password). */
export function describeHistorySetting(setting: HistorySetting): string {
  if (!setting.on) {
    return setting.reason === "turned_off"
      ? "chat history: kept in each browser (LWC_CHAT_HISTORY=browser)"
      : "chat history: kept in each browser: on Vercel the server needs a database for it (add Postgres from the Marketplace, or set DATABASE_URL)";
  }
  const { location } = setting;
  return location.engine === "postgres"
    ? `chat history: Postgres at ${new URL(location.url).host}`
    : `chat history: embedded database in ${location.dataDir}`;
}

/**
 * `npm run db:migrate`: applies the chat history's SQL migrations (lib/history/migrations) to the
 * database the environment names (DATABASE_URL or POSTGRES_URL, else the embedded one in
 * LWC_DATA_DIR), reading the same .env files as `next start` (or `next dev` outside production).
 * The server also applies them at start-up and on first use; this is for a deploy step of your own.
 */
import { join } from "node:path";
import nextEnv from "@next/env";
import { describeHistorySetting, historySettingFromEnv } from "@/lib/history/config";
import { openHistoryDatabase } from "@/lib/history/database";

const root = join(import.meta.dirname, "..");
nextEnv.loadEnvConfig(root, process.env.NODE_ENV !== "production", { info() {}, error() {} });
const setting = historySettingFromEnv(process.env, root);
console.log(describeHistorySetting(setting));
if (setting.on) {
  const started = Date.now();
  try {
    const database = await openHistoryDatabase(setting.location);
    await database.close();
    console.log(`Migrations applied (${Date.now() - started} ms).`);
  } catch (error) {
    console.error(`Migrations failed: ${error instanceof Error && error.name === "DataDirInUseError" ? error.message : error instanceof Error ? `${error.name}${(error as { code?: string }).code ? ` (code ${(error as { code?: string }).code})` : ""}` : String(error)}`);
    process.exitCode = 1;
  }
}

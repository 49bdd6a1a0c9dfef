import "server-only";
/**
 * At the start of a long-lived server (instrumentation.ts): say where chats are kept, and open the
 * history database and apply its migrations in the background, so the first sync finds it ready
 * and a problem (a data folder another process holds, a database that refuses) is logged at once.
 * The server starts either way; the history routes answer 503 until the database opens.
 */
import { describeErrorForLog, LOG_PREFIX, type Logger } from "@/lib/logger";
import { describeHistorySetting, historySettingFromEnv } from "./config";
import { openHistoryDatabase, type HistoryDatabase } from "./database";

type Env = Record<string, string | undefined>;

export async function openHistoryAtStart(env: Env, logger: Logger): Promise<HistoryDatabase | undefined> {
  const setting = historySettingFromEnv(env);
  logger.info(`${LOG_PREFIX} ${describeHistorySetting(setting)}`);
  // A serverless instance opens it on its first history request instead.
  if (!setting.on || env.VERCEL?.trim() === "1") return undefined;
  const started = Date.now();
  try {
    const database = await openHistoryDatabase(setting.location);
    logger.info(`${LOG_PREFIX} chat history: database ready, migrations applied (${Date.now() - started} ms)`);
    return database;
  } catch (error) {
    const why = error instanceof Error && error.name === "DataDirInUseError" ? error.message : describeErrorForLog(error);
    logger.error(`${LOG_PREFIX} chat history: the database could not be opened: ${why}`);
    return undefined;
  }
}

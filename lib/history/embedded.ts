import "server-only";
/**
 * The embedded engine: PGlite (Postgres compiled to WebAssembly) keeping its files in
 * `<LWC_DATA_DIR>/pglite`, locked to this process (./data-dir-lock.ts). Created on first open.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { lockDataDir } from "./data-dir-lock";
import { migrationsFolder, type HistoryDatabase, type HistoryDb } from "./database";

export async function openEmbedded(dataDir: string): Promise<HistoryDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(dataDir, join(dataDir, "pglite.lock"));
  let client: PGlite | undefined;
  try {
    client = await PGlite.create(join(dataDir, "pglite"));
    const db = drizzle({ client });
    await migrate(db, { migrationsFolder: migrationsFolder() });
    const opened = client;
    return {
      engine: "embedded",
      db: db as unknown as HistoryDb,
      close: async () => {
        try {
          await opened.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    await client?.close().catch(() => undefined);
    lock.release();
    throw error;
  }
}

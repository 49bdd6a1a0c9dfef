import "server-only";
/**
 * The history database behind one interface: Drizzle over node-postgres (DATABASE_URL or
 * POSTGRES_URL) or over PGlite, the embedded Postgres (LWC_DATA_DIR). Both run the same pg-core
 * schema (./schema.ts) and the same SQL migrations (./migrations), applied when the database is
 * opened. One open database per location and process (kept on globalThis: Next.js loads
 * instrumentation.ts and the routes as separate module instances, and PGlite must never be
 * opened twice on one folder).
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

export type HistoryLocation = { engine: "postgres"; url: string } | { engine: "embedded"; dataDir: string };

export type HistoryDb = PgDatabase<PgQueryResultHKT>;

export interface HistoryDatabase {
  engine: HistoryLocation["engine"];
  db: HistoryDb;
  close(): Promise<void>;
}

const REGISTRY = Symbol.for("login-with-chatgpt.history-databases");

interface Entry {
  opening: Promise<HistoryDatabase>;
  users: number;
}

function registry(): Map<string, Entry> {
  const global = globalThis as { [REGISTRY]?: Map<string, Entry> };
  global[REGISTRY] ??= new Map();
  return global[REGISTRY];
}

function keyOf(location: HistoryLocation): string {
  return location.engine === "postgres" ? `postgres ${location.url}` : `embedded ${location.dataDir}`;
}

async function openAndMigrate(location: HistoryLocation): Promise<HistoryDatabase> {
  if (location.engine === "postgres") {
    const { openPostgres } = await import("./postgres");
    return openPostgres(location.url);
  }
  const { openEmbedded } = await import("./embedded");
  return openEmbedded(location.dataDir);
}

/**
 * The database at `location`, opened and migrated once per process and shared by every caller;
 * each caller's `close` lets go of it, and the last one closes it. A failed open is forgotten, so
 * the next call tries again.
 */
export async function openHistoryDatabase(location: HistoryLocation): Promise<HistoryDatabase> {
  const key = keyOf(location);
  let entry = registry().get(key);
  if (!entry) {
    const made: Entry = { opening: openAndMigrate(location), users: 0 };
    registry().set(key, made);
    made.opening.catch(() => {
      if (registry().get(key) === made) registry().delete(key);
    });
    entry = made;
  }
  entry.users += 1;
  const shared = entry;
  let database: HistoryDatabase;
  try {
    database = await shared.opening;
  } catch (error) {
    shared.users -= 1;
    throw error;
  }
  let closed = false;
  return {
    ...database,
    close: async () => {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      if (registry().get(key) === shared) registry().delete(key);
      await database.close();
    },
  };
}

/** Where the SQL migrations are: read at run time (next.config.ts traces the folder into the build). */
export function migrationsFolder(): string {
  return `${process.cwd()}/lib/history/migrations`;
}

import "server-only";
/**
 * The Postgres engine: node-postgres' pool under Drizzle. Migrations run on one connection that
 * holds a session advisory lock, so instances starting together apply each migration once (the
 * others wait, then find nothing to do).
 */
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { Pool } from "pg";
import { migrationsFolder, type HistoryDatabase, type HistoryDb } from "./database";

/** A serverless instance serves one request at a time; a long-lived one a few at once. */
const POOL_SIZE = 5;
const CONNECT_TIMEOUT_MS = 5_000;
/** Any fixed number: the lock every instance takes around its migrations. */
const MIGRATION_LOCK = 3_141_592_034;

export async function openPostgres(url: string): Promise<HistoryDatabase> {
  const pool = new Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, idleTimeoutMillis: 30_000 });
  // An idle connection that breaks (the server restarts) must not crash the process: the pool drops it.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect();
    try {
      await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
      try {
        await migrate(drizzle({ client }), { migrationsFolder: migrationsFolder() });
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { engine: "postgres", db: drizzle({ client: pool }) as unknown as HistoryDb, close: () => pool.end() };
}

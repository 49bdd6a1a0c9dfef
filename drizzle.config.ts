import { defineConfig } from "drizzle-kit";

// `npm run db:generate`: SQL migrations for lib/history/schema.ts, one schema for Postgres and the
// embedded PGlite (docs/history.md). They are applied by `npm run db:migrate` and at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/history/schema.ts",
  out: "./lib/history/migrations",
});

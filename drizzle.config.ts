import { defineConfig } from "drizzle-kit";

// Migrations are generated from the table definitions and committed; they are applied at start-up
// (and in tests) by functions/db/migrate.ts, the same way for PGlite, Postgres and Neon.
export default defineConfig({
  dialect: "postgresql",
  schema: "./schema/tables/index.ts",
  out: "./schema/migrations",
  strict: true,
  verbose: false,
});

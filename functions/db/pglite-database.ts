import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import * as tables from "../../schema/tables/index.ts";
import { type Database, type Db, MIGRATIONS_FOLDER } from "./db.ts";

/**
 * The embedded database (single-machine mode). Kept apart from open-database.ts, which loads this
 * module only when PGlite is asked for, so that an edge bundle never carries PGlite's WebAssembly.
 */

/** A drizzle Database over an open PGlite client (also used by tests that load a snapshot). */
export function wrapPglite(client: PGlite, description: string): Database {
  const db = drizzlePglite(client, { schema: tables });
  return {
    db: db as unknown as Db,
    driver: "pglite",
    description,
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => client.close(),
  };
}

/** Opens PGlite under `dataDir`, or in memory when it is null. */
export async function openPglite(dataDir: string | null): Promise<Database> {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const client = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  return wrapPglite(client, dataDir ? `pglite (${dataDir})` : "pglite (in memory)");
}

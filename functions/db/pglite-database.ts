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

export interface PgliteOptions {
  /**
   * For a process that runs one command and exits (the CLI without a server): 16 MB of shared
   * buffers instead of PGlite's 128 MB. Postgres sets up its whole buffer pool when it starts,
   * and on this 2-core machine that halves PGlite's start (~1.1 s to ~0.55 s); a server keeps the
   * larger pool, which it reads from for its whole life.
   */
  shortLived?: boolean;
}

/** PGlite's start options for a process that runs briefly (see PgliteOptions.shortLived). */
export function shortLivedStart(): { startParams: string[] } {
  return { startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"] };
}

/** Opens PGlite under `dataDir`, or in memory when it is null. */
export async function openPglite(dataDir: string | null, options: PgliteOptions = {}): Promise<Database> {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const start = options.shortLived ? shortLivedStart() : {};
  const client = dataDir ? await PGlite.create(dataDir, start) : await PGlite.create(start);
  return wrapPglite(client, dataDir ? `pglite (${dataDir})` : "pglite (in memory)");
}

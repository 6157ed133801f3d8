import type { Config } from "../../functions/config/config.ts";
import type { Database } from "../../functions/db/db.ts";
import { explainDatabaseError, openDatabase } from "../../functions/db/open-database.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.ts";

const elapsed = (since: number) => Math.round(performance.now() - since);

export interface Runtime {
  database: Database;
  services: Services;
  close(): Promise<void>;
}

/**
 * Opens the configured database for a server or a CLI command: takes the data-directory lock
 * (PGlite only), applies pending migrations, builds the services. `close` undoes it all.
 */
export async function openRuntime(
  config: Config,
  command: string,
  opts: { progress?: (msg: string, fields: Record<string, unknown>) => void } = {},
): Promise<Runtime> {
  const progress = opts.progress ?? (() => {});
  let lock: DataDirLock | null = null;
  if (config.database.driver === "pglite") lock = lockDataDir(config.dataDir, command);
  let database: Database | null = null;
  try {
    let t = performance.now();
    progress("opening the database", { driver: config.database.driver });
    database = await openDatabase(config.database);
    progress("database open; applying migrations", { database: database.description, ms: elapsed(t) });
    t = performance.now();
    await database.migrate();
    progress("migrations applied", { ms: elapsed(t) });
  } catch (err) {
    await database?.close().catch(() => {});
    lock?.release();
    throw explainDatabaseError(err, config.database);
  }
  const db = database;
  const services = createServices({ db: db.db, clock: systemClock, ids: defaultIds });
  let closed = false;
  return {
    database: db,
    services,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}

import type { Config } from "../../functions/config/config.ts";
import type { Database } from "../../functions/db/db.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import { type DataDirLock, DataDirLockedError, lockDataDir } from "./data-dir-lock.ts";
import { schemaIsCurrent } from "./schema-current.ts";

const elapsed = (since: number) => Math.round(performance.now() - since);

export interface Runtime {
  database: Database;
  services: Services;
  close(): Promise<void>;
}

/**
 * Opens the database the configuration names. PGlite's module is loaded directly: going through
 * open-database.ts would also load the Neon driver and its WebSocket client, which a CLI command on
 * the embedded database never uses.
 */
async function open(database: Config["database"], shortLived: boolean): Promise<Database> {
  if (database.driver === "pglite")
    return (await import("../../functions/db/pglite-database.ts")).openPglite(database.dataDir, { shortLived });
  return (await import("../../functions/db/open-database.ts")).openDatabase(database);
}

async function explain(err: unknown, database: Config["database"]): Promise<unknown> {
  if (database.driver === "pglite") return err;
  return (await import("../../functions/db/open-database.ts")).explainDatabaseError(err, database);
}

export interface RuntimeOptions {
  progress?: (msg: string, fields: Record<string, unknown>) => void;
  /** Runs once the data dir's lock is held, before the database opens (the server's admin socket). */
  afterLock?: () => Promise<void>;
  /** The data dir's lock when the caller took it already (the CLI, before loading the database modules). */
  lock?: DataDirLock;
  /** The process runs one command and exits (the CLI): PGlite starts with a smaller buffer pool. */
  shortLived?: boolean;
}

/** How long `serve` waits for a CLI command that holds the data dir (they take seconds). */
const CLI_LOCK_WAIT_MS = 60_000;

/**
 * The data dir's lock. A server starting while a CLI command holds it waits for that command
 * (logged), instead of failing: `npm start` right after `osprey keys create` should just work.
 */
async function takeLock(config: Config, command: string, progress: NonNullable<RuntimeOptions["progress"]>) {
  const deadline = Date.now() + CLI_LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      return lockDataDir(config.dataDir, command);
    } catch (err) {
      const cliHolds = err instanceof DataDirLockedError && err.owner.command.startsWith("osprey ");
      if (command !== "serve" || !cliHolds || Date.now() > deadline) throw err;
      if (!told)
        progress("waiting for a CLI command to release the data dir", { pid: err.owner.pid, command: err.owner.command });
      told = true;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Opens the configured database for a server or a CLI command: takes the data-directory lock
 * (PGlite only), applies pending migrations (none when the schema is already current: the check
 * is one query, where the migrator would read every migration file and run its DDL), builds the
 * services. `close` undoes it all.
 */
export async function openRuntime(config: Config, command: string, opts: RuntimeOptions = {}): Promise<Runtime> {
  const progress = opts.progress ?? (() => {});
  let lock: DataDirLock | null = opts.lock ?? null;
  if (config.database.driver === "pglite" && !lock) lock = await takeLock(config, command, progress);
  let database: Database | null = null;
  try {
    await opts.afterLock?.();
    let t = performance.now();
    progress("opening the database", { driver: config.database.driver });
    database = await open(config.database, opts.shortLived ?? false);
    progress("database open; applying migrations", { database: database.description, ms: elapsed(t) });
    t = performance.now();
    const current = await schemaIsCurrent(database.db);
    if (!current) await database.migrate();
    progress(current ? "schema is current; no migrations to apply" : "migrations applied", { ms: elapsed(t) });
  } catch (err) {
    await database?.close().catch(() => {});
    lock?.release();
    throw await explain(err, config.database);
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

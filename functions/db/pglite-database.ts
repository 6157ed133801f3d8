import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import * as tables from "../../schema/tables/index.ts";
import { type Database, type Db, MIGRATIONS_FOLDER } from "./db.ts";
import { ownsItsConnection } from "./generic-plan.ts";

/**
 * The embedded database (single-machine mode). Kept apart from open-database.ts, which loads this
 * module only when PGlite is asked for, so that an edge bundle never carries PGlite's WebAssembly.
 */

/**
 * PGlite runs Postgres in single-user mode, which has no checkpointer: nothing trims the write-ahead
 * log until the database closes. A 200,000-document import left 7.6 GB of WAL in a 10.8 GB data dir,
 * and a process killed with 5 GB of it took 134 s to replay at its next open (a clean open: 0.4 s).
 * So the process checkpoints itself: every `intervalMs` it asks how much WAL the last checkpoint
 * left behind, and past `bytes` it runs CHECKPOINT (about 0.1 s per 256 MB written; PGlite runs one
 * statement at a time, so it waits for the statement or transaction under way).
 */
export interface WalCheckpoints {
  bytes: number;
  intervalMs: number;
}

export const WAL_CHECKPOINTS: WalCheckpoints = { bytes: 256 * 1024 * 1024, intervalMs: 30_000 };

function checkpointWhenWalGrows(client: PGlite, o: WalCheckpoints): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy || client.closed) return;
    busy = true;
    void client
      .query<{ wal: string }>("select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text as wal from pg_control_checkpoint()")
      .then(async (r) => {
        if (Number(r.rows[0]?.wal ?? 0) >= o.bytes && !client.closed) await client.exec("checkpoint");
      })
      // A failed check is tried again at the next tick (a closing client, a statement that failed).
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, o.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A drizzle Database over an open PGlite client (also used by tests that load a snapshot). */
export function wrapPglite(client: PGlite, description: string, wal: WalCheckpoints = WAL_CHECKPOINTS): Database {
  const db = drizzlePglite(client, { schema: tables });
  // One connection, this process's own: statements may be kept prepared on it (generic-plan.ts).
  ownsItsConnection(db as unknown as Db);
  const stopCheckpoints = checkpointWhenWalGrows(client, wal);
  return {
    db: db as unknown as Db,
    driver: "pglite",
    description,
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => {
      stopCheckpoints();
      return client.close();
    },
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
  /** When the process checkpoints the write-ahead log itself (see WalCheckpoints). */
  walCheckpoints?: WalCheckpoints;
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
  return wrapPglite(client, dataDir ? `pglite (${dataDir})` : "pglite (in memory)", options.walCheckpoints);
}

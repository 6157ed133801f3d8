import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { Pool as NeonPool, neonConfig } from "@neondatabase/serverless";
import { drizzle as drizzleNeon } from "drizzle-orm/neon-serverless";
import { migrate as migrateNeon } from "drizzle-orm/neon-serverless/migrator";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { WebSocket } from "ws";
import * as tables from "../../schema/tables/index.ts";
import type { DatabaseConfig } from "../config/config.ts";
import type { Database, Db } from "./db.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../schema/migrations", import.meta.url));

/** Any value serves, as long as every Osprey process uses the same one. */
const MIGRATION_LOCK_ID = 0x05_9e_e7;

/** Redacts the password of a connection URL for display. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres";
  }
}

interface LockingPool {
  connect(): Promise<{ query(sql: string, params?: unknown[]): Promise<unknown>; release(): void }>;
}

/**
 * Runs the migrator while holding a session advisory lock, so two processes starting at once
 * (a server and a CLI, or several Lambdas) apply the migrations once, one after the other.
 */
async function withMigrationLock(pool: LockingPool, run: () => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    try {
      await run();
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
}

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

/** Opens the database the configuration names. PGlite is opened in-memory when `dataDir` is null. */
export async function openDatabase(config: DatabaseConfig | { driver: "pglite"; dataDir: null }): Promise<Database> {
  const migrationsFolder = MIGRATIONS_FOLDER;
  if (config.driver === "pglite") {
    if (config.dataDir) mkdirSync(path.dirname(config.dataDir), { recursive: true });
    const client = config.dataDir ? await PGlite.create(config.dataDir) : await PGlite.create();
    return wrapPglite(client, config.dataDir ? `pglite (${config.dataDir})` : "pglite (in memory)");
  }
  if (config.driver === "pg") {
    const pool = new pg.Pool({ connectionString: config.url, max: 10 });
    // An idle client that loses its connection must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    const db = drizzleNodePg(pool, { schema: tables });
    return {
      db: db as unknown as Db,
      driver: "pg",
      description: `postgres (${describeUrl(config.url)})`,
      migrate: () => withMigrationLock(pool, () => migrateNodePg(db, { migrationsFolder })),
      close: () => pool.end(),
    };
  }
  // Neon's driver speaks the Postgres protocol over a WebSocket. Its settings are static on the
  // module; a process uses one database, so they are set once here from the validated config.
  neonConfig.webSocketConstructor = WebSocket;
  if (config.wsProxy) {
    const proxy = config.wsProxy;
    neonConfig.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = !/^(localhost|127\.|\[::1\])/.test(proxy);
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  const pool = new NeonPool({ connectionString: config.url, max: 10 });
  pool.on("error", () => {});
  const db = drizzleNeon(pool, { schema: tables });
  return {
    db: db as unknown as Db,
    driver: "neon",
    description: `neon (${describeUrl(config.url)}${config.wsProxy ? ` via ${config.wsProxy}` : ""})`,
    migrate: () => withMigrationLock(pool as unknown as LockingPool, () => migrateNeon(db, { migrationsFolder })),
    close: () => pool.end(),
  };
}

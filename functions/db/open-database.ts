import { Pool as NeonPool, neonConfig } from "@neondatabase/serverless";
import { drizzle as drizzleNeon } from "drizzle-orm/neon-serverless";
import { migrate as migrateNeon } from "drizzle-orm/neon-serverless/migrator";
import { WebSocket } from "ws";
import * as tables from "../../schema/tables/index.ts";
import type { DatabaseConfig } from "../config/config.ts";
import { type Database, type Db, MIGRATIONS_FOLDER } from "./db.ts";

export { MIGRATIONS_FOLDER } from "./db.ts";

/*
 * PGlite and `pg` are loaded with import() on the one path that needs each. The edge opens Neon
 * (over a WebSocket) or, for RDS, `pg` (over TCP, OSPREY_DB_DRIVER=pg); its bundles carry `pg` as a
 * chunk read only when that driver is chosen, and never PGlite (functions/build/build-edge.ts checks
 * both).
 *
 * TLS with `pg` is whatever the URL's sslmode says. An RDS secret becomes a URL with
 * sslmode=verify-full (functions/config/secret-env.ts): the server's chain and host name are
 * checked against Node's CAs plus NODE_EXTRA_CA_CERTS, which the deployment points at the RDS CAs
 * (the Lambda runtime's /var/runtime/ca-cert.pem; the container image's RDS bundle).
 */

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

/**
 * A failure to open or migrate a Postgres database, in words a newcomer can act on: it names
 * DATABASE_URL (password hidden), says what went wrong and what to do. Other errors pass unchanged.
 */
export function explainDatabaseError(err: unknown, config: { driver: string; url?: string }): unknown {
  if (config.driver === "pglite" || !config.url || !(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  const where = `DATABASE_URL (${describeUrl(config.url)})`;
  const fix = "Check DATABASE_URL, or unset it to use the embedded database.";
  const hint =
    code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ETIMEDOUT"
      ? "Is Postgres running there and reachable?"
      : code === "28P01" || code === "28000"
        ? "The user or password is wrong."
        : code === "3D000"
          ? "That database does not exist: create it (createdb) or name another."
          : null;
  if (!hint && typeof code !== "string") return err;
  const error = new Error(`could not open the database at ${where}: ${err.message}. ${hint ? `${hint} ` : ""}${fix}`);
  error.cause = err;
  return error;
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

export interface PoolOptions {
  /** Most connections the pool opens (default 10). */
  max?: number;
  /** An idle connection is closed after this long (default: the driver's, 10 s). */
  idleTimeoutMs?: number;
  /**
   * `pg` only: give up a new connection after this long (default: never). A function whose
   * security group the database does not admit would otherwise wait out its whole invocation.
   */
  connectTimeoutMs?: number;
}

/** Opens the database the configuration names. PGlite is opened in-memory when `dataDir` is null. */
export async function openDatabase(
  config: DatabaseConfig | { driver: "pglite"; dataDir: null },
  poolOptions: PoolOptions = {},
): Promise<Database> {
  const migrationsFolder = MIGRATIONS_FOLDER;
  const poolSize = {
    max: poolOptions.max ?? 10,
    ...(poolOptions.idleTimeoutMs ? { idleTimeoutMillis: poolOptions.idleTimeoutMs } : {}),
  };
  if (config.driver === "pglite") {
    const { openPglite } = await import("./pglite-database.ts");
    return openPglite(config.dataDir);
  }
  if (config.driver === "pg") {
    const [{ default: pg }, { drizzle: drizzleNodePg }, { migrate: migrateNodePg }] = await Promise.all([
      import("pg"),
      import("drizzle-orm/node-postgres"),
      import("drizzle-orm/node-postgres/migrator"),
    ]);
    const pool = new pg.Pool({
      connectionString: config.url,
      ...poolSize,
      ...(poolOptions.connectTimeoutMs ? { connectionTimeoutMillis: poolOptions.connectTimeoutMs } : {}),
    });
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
  const pool = new NeonPool({ connectionString: config.url, ...poolSize });
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

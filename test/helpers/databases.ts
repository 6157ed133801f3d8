import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { inject } from "vitest";
import type { Database, DbDriver } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { shortLivedStart, wrapPglite } from "../../functions/db/pglite-database.ts";
import { startNeonProxy } from "./neon-proxy.ts";

/**
 * Test databases. PGlite (in memory) always; with TEST_DATABASE_URL set (CI sets it to the real
 * Postgres on 127.0.0.1:5432), also Postgres through `pg` and through the Neon driver. Each
 * Postgres test database is cloned from a template that global-setup migrated once, and dropped
 * afterwards, so test files never see each other's rows.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || "";
export const TEMPLATE_DB = "osprey_test_template";

export function adminUrl(database = "postgres"): string {
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty (unmigrated) database, or a clone of the migrated template. */
export async function createPostgresDatabase(opts: {
  fromTemplate: boolean;
}): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `osprey_t_${randomBytes(6).toString("hex")}`;
  await admin((c) => c.query(`create database ${name}${opts.fromTemplate ? ` template ${TEMPLATE_DB}` : ""}`));
  return {
    name,
    url: adminUrl(name),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

export interface TestDatabase extends Database {
  /** Closes the connection and drops the database. */
  dispose(): Promise<void>;
}

export interface DriverCase {
  driver: DbDriver;
  open(opts?: { migrated?: boolean }): Promise<TestDatabase>;
}

let snapshot: Blob | undefined;

const pglite: DriverCase = {
  driver: "pglite",
  async open({ migrated = true } = {}) {
    if (!migrated) {
      const db = await openDatabase({ driver: "pglite", dataDir: null });
      return { ...db, dispose: () => db.close() };
    }
    snapshot ??= new Blob([readFileSync(inject("pgliteSnapshot"))]);
    const db = wrapPglite(
      await PGlite.create({ loadDataDir: snapshot, ...shortLivedStart() }),
      "pglite (in memory, from snapshot)",
    );
    return { ...db, dispose: () => db.close() };
  },
};

const postgres: DriverCase = {
  driver: "pg",
  async open({ migrated = true } = {}) {
    const created = await createPostgresDatabase({ fromTemplate: migrated });
    const db = await openDatabase({ driver: "pg", url: created.url });
    return {
      ...db,
      async dispose() {
        await db.close();
        await created.drop();
      },
    };
  },
};

const neon: DriverCase = {
  driver: "neon",
  async open({ migrated = true } = {}) {
    const created = await createPostgresDatabase({ fromTemplate: migrated });
    const proxy = await startNeonProxy();
    const db = await openDatabase({ driver: "neon", url: created.url, wsProxy: proxy.url });
    return {
      ...db,
      async dispose() {
        await db.close();
        await proxy.close();
        await created.drop();
      },
    };
  },
};

/** The drivers this run can test: PGlite always, pg and neon when TEST_DATABASE_URL is set. */
export function driverCases(which: DbDriver[] = ["pglite", "pg", "neon"]): DriverCase[] {
  const available = TEST_DATABASE_URL ? [pglite, postgres, neon] : [pglite];
  return available.filter((d) => which.includes(d.driver));
}

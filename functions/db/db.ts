import { fileURLToPath } from "node:url";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as tables from "../../schema/tables/index.ts";

export type Schema = typeof tables;

/**
 * The one database type the code is written against. PGlite, node-postgres and the Neon
 * serverless driver all produce a drizzle PgDatabase; repositories take a `Db` (a transaction is
 * one too), so they never know which driver is underneath.
 */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbDriver = "pglite" | "pg" | "neon";

/** An open database: the drizzle handle plus what the process needs to run and stop it. */
export interface Database {
  db: Db;
  driver: DbDriver;
  /** Human-readable target for the start-up banner (no credentials). */
  description: string;
  /** Applies the committed migrations (idempotent; serialised across processes on Postgres). */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** The committed migrations (schema/migrations), applied the same way by every driver. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../schema/migrations", import.meta.url));

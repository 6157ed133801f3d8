import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../functions/db/open-database.ts";
import { wrapPglite } from "../functions/db/pglite-database.ts";
import { adminUrl, TEMPLATE_DB, TEST_DATABASE_URL } from "./helpers/databases.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A tarball of a migrated PGlite data directory: loading it is ~6x faster than initdb + migrate. */
    pgliteSnapshot: string;
    /**
     * A migrated PGlite data directory on disk (closed). A test that needs an `OSPREY_DATA_DIR` with
     * a current schema copies it (test/helpers/data-dir.ts) instead of paying initdb + migrations
     * in every CLI process or server it starts.
     */
    pgliteDataDir: string;
  }
}

async function migratedPgliteSnapshot(): Promise<string> {
  const db = wrapPglite(await PGlite.create(), "snapshot");
  await db.migrate();
  const client = (db.db as unknown as { $client: PGlite }).$client;
  const file = path.join(tmpdir(), `osprey-pglite-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await (await client.dumpDataDir("none")).arrayBuffer()));
  await db.close();
  return file;
}

async function migratedPgliteDataDir(): Promise<string> {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "osprey-pglite-template-")), "pglite");
  const db = await openDatabase({ driver: "pglite", dataDir: dir });
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
  return dir;
}

/** Migrates the template database every Postgres test database is cloned from. */
async function migratedPostgresTemplate(): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
    await client.query(`create database ${TEMPLATE_DB}`);
  } finally {
    await client.end();
  }
  const db = await openDatabase({ driver: "pg", url: adminUrl(TEMPLATE_DB) });
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
}

export async function setup(project: TestProject): Promise<() => void> {
  const snapshot = await migratedPgliteSnapshot();
  const dataDir = await migratedPgliteDataDir();
  project.provide("pgliteSnapshot", snapshot);
  project.provide("pgliteDataDir", dataDir);
  if (TEST_DATABASE_URL) await migratedPostgresTemplate();
  return () => {
    rmSync(snapshot, { force: true });
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  };
}

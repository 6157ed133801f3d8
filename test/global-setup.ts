import pg from "pg";
import { openDatabase } from "../functions/db/open-database.ts";
import { adminUrl, TEMPLATE_DB, TEST_DATABASE_URL } from "./helpers/databases.ts";

/** Migrates the template database every Postgres test database is cloned from. */
export async function setup(): Promise<void> {
  if (!TEST_DATABASE_URL) return;
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

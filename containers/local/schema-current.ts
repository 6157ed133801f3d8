import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { type Db, MIGRATIONS_FOLDER } from "../../functions/db/db.ts";

/**
 * Whether the database already has every committed migration, by the migrator's own rule: drizzle
 * applies a migration when the newest `created_at` in drizzle.__drizzle_migrations is older than
 * the migration's `when` in meta/_journal.json. One query instead of the migrator's DDL and file
 * reads, so a CLI command on an up-to-date database skips it; when in doubt (no table, no journal)
 * the answer is false and the migrator runs as before.
 */

/** The newest migration's timestamp in the journal (milliseconds), or null when it cannot be read. */
export function latestMigrationMillis(folder = MIGRATIONS_FOLDER): number | null {
  try {
    const journal = JSON.parse(readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as {
      entries?: { when?: unknown }[];
    };
    const whens = (journal.entries ?? []).map((e) => e.when).filter((w): w is number => typeof w === "number");
    return whens.length > 0 ? Math.max(...whens) : null;
  } catch {
    return null;
  }
}

export async function schemaIsCurrent(db: Db, folder = MIGRATIONS_FOLDER): Promise<boolean> {
  const latest = latestMigrationMillis(folder);
  if (latest === null) return false;
  try {
    const result = (await db.execute(sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`)) as unknown as {
      rows: { at: string | null }[];
    };
    const at = result.rows[0]?.at;
    return at !== null && at !== undefined && Number(at) >= latest;
  } catch {
    // No migrations table yet (a new database): the migrator makes it.
    return false;
  }
}

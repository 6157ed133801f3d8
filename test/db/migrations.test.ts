import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Db } from "../../functions/db/db.ts";
import { MIGRATIONS_FOLDER, openDatabase } from "../../functions/db/open-database.ts";
import { accountRepo } from "../../functions/repos/account.repo.ts";
import { createPostgresDatabase, driverCases, TEST_DATABASE_URL, type TestDatabase } from "../helpers/databases.ts";

const TABLES = [
  "accounts",
  "api_keys",
  "browser_profile_domains",
  "browser_profiles",
  "browser_sessions",
  "fetch_cache",
  "fetch_usage",
  "queue_messages",
  "rate_limit_counters",
  "run_events",
  "run_steps",
  "runs",
  "search_cache",
  "search_documents",
  "search_postings",
  "search_stats",
  "search_terms",
  "search_usage",
  "vault_connections",
  "vault_items",
  "webhook_attempts",
  "webhook_deliveries",
];

interface JournalEntry {
  tag: string;
  when: number;
}
const journal: JournalEntry[] = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")).entries;

async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

async function publicTables(db: Db): Promise<string[]> {
  const r = await rows<{ table_name: string }>(
    db,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return r.map((t) => t.table_name);
}

async function journalRows(db: Db): Promise<{ hash: string; created_at: number }[]> {
  const r = await rows<{ hash: string; created_at: string | number }>(
    db,
    sql`select hash, created_at from drizzle.__drizzle_migrations order by created_at`,
  );
  return r.map((j) => ({ hash: j.hash, created_at: Number(j.created_at) }));
}

/** What the journal must hold after migrating: each committed migration once, by content hash. */
const expectedJournal = journal.map((e) => ({
  hash: createHash("sha256")
    .update(readFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), "utf8"))
    .digest("hex"),
  created_at: e.when,
}));

describe.each(driverCases())("migrations on $driver", ({ open }) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open({ migrated: false });
  });
  afterAll(() => db.dispose());

  it("starts from an empty database", async () => {
    expect(await publicTables(db.db)).toEqual([]);
  });

  it("migrate creates the tables and the migrations journal", async () => {
    await db.migrate();
    expect(await publicTables(db.db)).toEqual(TABLES);
    expect(await journalRows(db.db)).toEqual(expectedJournal);
  });

  it("a second migrate is a no-op that keeps the data", async () => {
    const accounts = accountRepo(db.db);
    const before = await accounts.insert({ id: "acct_migrate_keep", plan: "starter", creditBalance: 42 });
    await db.migrate();
    expect(await accounts.get("acct_migrate_keep")).toEqual(before);
    expect(await accounts.count()).toBe(1);
    expect(await publicTables(db.db)).toEqual(TABLES);
    expect(await journalRows(db.db)).toEqual(expectedJournal);
  });
});

describe.runIf(TEST_DATABASE_URL)("concurrent migrations on pg", () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  const handles: Database[] = [];
  beforeAll(async () => {
    created = await createPostgresDatabase({ fromTemplate: false });
    for (let i = 0; i < 3; i++) handles.push(await openDatabase({ driver: "pg", url: created.url }));
  });
  afterAll(async () => {
    for (const h of handles) await h.close();
    await created?.drop();
  });

  it("handles migrating the same fresh database at once all succeed, each migration recorded once", async () => {
    const results = await Promise.allSettled(handles.map((h) => h.migrate()));
    expect(results.map((r) => r.status)).toEqual(handles.map(() => "fulfilled"));
    const [first] = handles;
    if (!first) throw new Error("no handle");
    expect(await publicTables(first.db)).toEqual(TABLES);
    expect(await journalRows(first.db)).toEqual(expectedJournal);
  });

  it("releases the lock: a later migrate on another handle returns", async () => {
    const [, second] = handles;
    if (!second) throw new Error("no handle");
    await second.migrate();
    const held = await rows<{ n: number | string }>(
      second.db,
      sql`select count(*) as n from pg_locks
          where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
    );
    expect(Number(held[0]?.n)).toBe(0);
  });
});

describe("PGlite on disk", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "osprey-pglite-"));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("keeps its data across a close and a reopen", async () => {
    const dataDir = path.join(tmp, "data", "pglite");
    const first = await openDatabase({ driver: "pglite", dataDir });
    try {
      expect(first.description).toBe(`pglite (${dataDir})`);
      await first.migrate();
      await accountRepo(first.db).insert({ id: "acct_on_disk", plan: "pro", name: "persisted", creditBalance: 7 });
    } finally {
      await first.close();
    }

    const second = await openDatabase({ driver: "pglite", dataDir });
    try {
      await second.migrate();
      const row = await accountRepo(second.db).get("acct_on_disk");
      expect(row).toMatchObject({ id: "acct_on_disk", plan: "pro", name: "persisted", creditBalance: 7 });
      expect(await accountRepo(second.db).count()).toBe(1);
      expect(await journalRows(second.db)).toEqual(expectedJournal);
    } finally {
      await second.close();
    }
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import { MIGRATIONS_FOLDER } from "../../functions/db/open-database.ts";
import { accountRepo } from "../../functions/repos/account.repo.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { expectConsistent, rows } from "../helpers/search-index.ts";

// Migration 0009 (search_documents.owner_account_id) on a database whose index was filled before
// it: fetched pages had no owner and were global. The backfill gives a page to the one account
// whose completed fetch named it, deletes pages several accounts fetched, keeps the rest (imports
// and crawls write no usage row) global, and leaves df and the collection stats exact.

const BEFORE = "0008_search_filter_indexes";

/** A copy of the migrations folder that ends at `last`. */
function migrationsUpTo(last: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "osprey-migrations-"));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const upTo = journal.entries.findIndex((e) => e.tag === last);
  expect(upTo).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, upTo + 1);
  for (const e of journal.entries) copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify(journal));
  return dir;
}

/** An index document as the 0007/0008 writer stored it: no owner, postings with df and stats. */
async function insertOldDocument(db: Db, url: string, title: string, terms: Record<string, number>): Promise<void> {
  const length = Object.values(terms).reduce((a, b) => a + b, 0);
  const [doc] = await rows<{ id: string | number }>(
    db,
    sql`insert into search_documents (url, title, body, host, length, content_hash)
        values (${url}, ${title}, ${title}, ${new URL(url).hostname}, ${length}, ${`hash-${url}`}) returning id`,
  );
  for (const [term, tf] of Object.entries(terms)) {
    await db.execute(sql`insert into search_postings (term, doc_id, tf, doc_length, impact)
      values (${term}, ${Number(doc?.id)}, ${tf}, ${length}, ${tf / (tf + 0.9)})`);
    await db.execute(sql`insert into search_terms (term, df) values (${term}, 1)
      on conflict (term) do update set df = search_terms.df + 1`);
  }
  await db.execute(sql`insert into search_stats (id, doc_count, total_length) values (1, 1, ${length})
    on conflict (id) do update set doc_count = search_stats.doc_count + 1, total_length = search_stats.total_length + ${length}`);
}

let usageSeq = 0;
async function insertUsage(db: Db, accountId: string, url: string, finalUrl: string, status: "completed" | "failed") {
  await db.execute(sql`insert into fetch_usage (id, account_id, key_id, url, final_url, format, status, request_origin, created_at)
    values (${`fu_mig_${++usageSeq}`}, ${accountId}, 'key_mig', ${url}, ${finalUrl}, 'markdown', ${status}, 'api', now())`);
}

describe.each(driverCases(["pglite", "pg"]))("migration 0009 on an index filled before it ($driver)", ({ driver, open }) => {
  let db: TestDatabase;
  let folder: string;
  const A = "acct_mig_a";
  const B = "acct_mig_b";
  const C = "acct_mig_c";

  beforeAll(async () => {
    db = await open({ migrated: false });
    folder = migrationsUpTo(BEFORE);
    if (driver === "pglite") await migratePglite(db.db as never, { migrationsFolder: folder });
    else await migrateNodePg(db.db as never, { migrationsFolder: folder });
    for (const id of [A, B, C]) await accountRepo(db.db).insert({ id, plan: "pro" });

    await insertOldDocument(db.db, "https://one.example/page", "one", { common: 1, one: 2 });
    await insertOldDocument(db.db, "https://two.example/", "two", { common: 2, two: 1 });
    await insertOldDocument(db.db, "https://three.example/x", "three", { common: 1, three: 1 });
    await insertOldDocument(db.db, "https://import.example/doc", "imported", { common: 1, imported: 3 });
    await insertOldDocument(db.db, "https://five.example/", "five", { common: 1, five: 1 });
    await insertOldDocument(db.db, "https://six.example/p", "six", { common: 1, six: 1 });
    await insertOldDocument(db.db, "https://seven.example/", "seven", { common: 1, seven: 1 });
    // Final URLs as the fetch recorded them: a fragment, userinfo; a page fetched twice by one account.
    await insertUsage(db.db, A, "https://one.example/start", "https://one.example/page#frag", "completed");
    await insertUsage(db.db, A, "https://two.example/", "https://two.example/", "completed");
    await insertUsage(db.db, B, "https://two.example/", "https://two.example/", "completed");
    await insertUsage(db.db, B, "https://three.example/x", "https://three.example/moved", "completed");
    await insertUsage(db.db, A, "https://five.example/", "https://five.example/", "failed");
    await insertUsage(db.db, A, "https://user:pw@six.example/p", "https://user:pw@six.example/p", "completed");
    await insertUsage(db.db, A, "https://seven.example/", "https://seven.example/", "completed");
    await insertUsage(db.db, A, "https://seven.example/", "https://seven.example/", "completed");
    await db.db.execute(sql`insert into search_cache (key, response, expires_at)
      values ('old', '{"results":[{"url":"https://two.example/"}]}', now() + interval '1 minute')`);

    await db.migrate();
  }, 60_000);
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await db?.dispose();
  });

  it("gives each page to the one account that fetched it, deletes shared ones, keeps the rest global", async () => {
    const owners = await rows<{ url: string; owner_account_id: string }>(
      db.db,
      sql`select url, owner_account_id from search_documents order by url`,
    );
    expect(owners).toEqual([
      { url: "https://five.example/", owner_account_id: "" },
      { url: "https://import.example/doc", owner_account_id: "" },
      { url: "https://one.example/page", owner_account_id: A },
      { url: "https://seven.example/", owner_account_id: A },
      { url: "https://six.example/p", owner_account_id: A },
      { url: "https://three.example/x", owner_account_id: B },
    ]);
    expect(await rows(db.db, sql`select * from search_terms where term = 'two'`)).toEqual([]);
    const [common] = await rows<{ df: number }>(db.db, sql`select df from search_terms where term = 'common'`);
    expect(common?.df).toBe(6);
    await expectConsistent(db.db);
    expect(await rows(db.db, sql`select key from search_cache`)).toEqual([]);
  });

  it("searches after the migration see only what each account may", async () => {
    const index = createLocalIndex({ db: db.db });
    const q: SearchQuery = {
      text: "common",
      location: "US",
      language: "en",
      includeDomains: [],
      excludeDomains: [],
      domainType: "web",
      page: 0,
    };
    const seen = async (accountId: string) =>
      (await index.provider.search(q, new AbortController().signal, { accountId })).hits.map((h) => h.url).sort();
    expect(await seen(A)).toEqual([
      "https://five.example/",
      "https://import.example/doc",
      "https://one.example/page",
      "https://seven.example/",
      "https://six.example/p",
    ]);
    expect(await seen(B)).toEqual(["https://five.example/", "https://import.example/doc", "https://three.example/x"]);
    expect(await seen(C)).toEqual(["https://five.example/", "https://import.example/doc"]);
    // The writer goes on from the migrated state: a new private copy beside a migrated one.
    await index.writer.upsert([{ url: "https://one.example/page", title: "one", text: "common", ownerAccountId: B }]);
    await expectConsistent(db.db);
  });
});

import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import { analyze, termsOfTokens, tokenize } from "../../functions/search/analyze.ts";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { createLocalIndex, type LocalIndex } from "../../functions/search/local/local-index.ts";
import { DEFAULT_RANKING } from "../../functions/search/local/prepare.ts";
import { TERM_WEIGHTING } from "../../functions/search/local/ranking.ts";
import type { TestDatabase } from "./databases.ts";

/** Checks on the local index's tables shared by the search suites. */

/**
 * A local index on a database of the suite's driver case, holding `docs`, for the tests of one
 * describe block: opened (and filled) before them, disposed after. Its fields are set once the
 * block's tests run.
 */
export function indexedDatabase(
  open: () => Promise<TestDatabase>,
  clock: Clock,
  docs: IndexDocument[] = [],
): { database: TestDatabase; index: LocalIndex } {
  const ctx = {} as { database: TestDatabase; index: LocalIndex };
  beforeAll(async () => {
    ctx.database = await open();
    ctx.index = createLocalIndex({ db: ctx.database.db, clock });
    if (docs.length > 0) await ctx.index.writer.upsert(docs);
  }, 60_000);
  afterAll(() => ctx.database?.dispose());
  return ctx;
}

export async function rows<T>(db: Db, q: SQL): Promise<T[]> {
  return ((await db.execute(q)) as unknown as { rows: T[] }).rows;
}

/**
 * df, cf and collection stats must equal what the postings and documents say, and every posting must
 * carry its document's owner.
 */
export async function expectConsistent(db: Db): Promise<void> {
  const drift = await rows(
    db,
    sql`select coalesce(t.term, p.term) as term, t.df, p.n from search_terms t
        full join (select term, count(*)::int as n from search_postings group by term) p on p.term = t.term
        where t.df is distinct from p.n`,
  );
  expect(drift).toEqual([]);
  const cfDrift = await rows(
    db,
    sql`select t.term, t.cf, p.cf from search_terms t
        join (select term, sum(tf)::float8 as cf from search_postings group by term) p on p.term = t.term
        where abs(t.cf - p.cf) > 1e-6`,
  );
  expect(cfDrift).toEqual([]);
  const [stats] = await rows<{ doc_count: string; total_length: string }>(db, sql`select * from search_stats where id = 1`);
  const [docs] = await rows<{ n: string; len: string | null }>(
    db,
    sql`select count(*) as n, sum(length) as len from search_documents`,
  );
  expect(Number(stats?.doc_count ?? 0)).toBe(Number(docs?.n));
  expect(Number(stats?.total_length ?? 0)).toBe(Number(docs?.len ?? 0));
  const stray = await rows(
    db,
    sql`select p.doc_id from search_postings p left join search_documents d on d.id = p.doc_id
        where d.id is null or d.owner_account_id <> p.owner_account_id limit 5`,
  );
  expect(stray).toEqual([]);
}

/**
 * BM25 by the same formula in JS, over every document of the collection (title terms count
 * `titleWeight` times; each term's idf weighed as ranking.ts's TERM_WEIGHTING says): the score of
 * each document that contains a query term, keyed by `key`.
 */
export function referenceScores(
  docs: IndexDocument[],
  text: string,
  { k1 = 0.9, b = 0.4, key = (d: IndexDocument) => d.url } = {},
): Map<string, number> {
  const w = DEFAULT_RANKING.titleWeight;
  const tfs = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of analyze(d.title)) m.set(t, (m.get(t) ?? 0) + w);
    for (const t of analyze(d.text)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const lengths = tfs.map((m) => [...m.values()].reduce((a, c) => a + c, 0));
  const avgdl = lengths.reduce((s, l) => s + l, 0) / docs.length;
  const scores = new Map<string, number>();
  // Each distinct query term once (ranking.ts: a repeated term counts once), its idf weighed by
  // its burstiness (cf / df) and, when the query spells it with a digit, the digit factor.
  const words = tokenize(text);
  const terms = termsOfTokens(words);
  for (const t of new Set(analyze(text))) {
    const holding = tfs.filter((m) => m.has(t));
    const df = holding.length;
    if (df === 0) continue;
    const cf = holding.reduce((s, m) => s + (m.get(t) ?? 0), 0);
    const digit = terms.some((term, i) => term === t && /\p{N}/u.test(words[i] as string));
    const idf =
      Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)) *
      (cf / df) ** TERM_WEIGHTING.burstiness *
      (digit ? TERM_WEIGHTING.digit : 1);
    tfs.forEach((m, i) => {
      const tf = m.get(t) ?? 0;
      if (tf === 0) return;
      const k = key(docs[i] as IndexDocument);
      scores.set(k, (scores.get(k) ?? 0) + (idf * tf) / (tf + k1 * (1 - b + (b * (lengths[i] ?? 0)) / avgdl)));
    });
  }
  return scores;
}

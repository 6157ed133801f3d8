/**
 * The local index's write side. Each batch (up to BATCH_SIZE documents) is one transaction that
 * first locks the collection-stats row: writers are serialised there, so document frequencies and
 * collection stats stay exact under concurrent upserts (and two writers of one new URL cannot both
 * insert it), at the price of one writer at a time — bulk import batches, so that is cheap.
 * A document is identified by (owner, URL): one URL may have a global copy and a private copy per
 * account, each counted in the df and collection stats as a document of its own.
 * Postings and df changes go in as a few set-based statements over arrays (unnest), not per row.
 * A term's collection frequency (cf: the sum of its postings' tf, for its burstiness in ranking.ts)
 * is kept with its df by the same statements: no statement more per batch, 8 bytes per term.
 * Every batch that writes and every removal moves search_stats.generation on, in the statement that
 * keeps the collection stats: searches keep the df they read until it moves (regularise.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/db.ts";
import type { IndexDocument, IndexWriter, UpsertResult } from "./document.ts";
import { normalizeUrl, type PreparedDocument, prepareDocument, type RankingOptions } from "./prepare.ts";

export const BATCH_SIZE = 500;

async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** One array-valued parameter (drizzle would otherwise spread a JS array into a list). */
const arr = (values: unknown[], type: string): SQL => sql`${sql.param(values)}::${sql.raw(type)}`;

/** A document's identity as a map key. */
const identity = (ownerAccountId: string, url: string) => `${ownerAccountId} ${url}`;

async function lockStats(tx: Db): Promise<void> {
  await tx.execute(sql`insert into search_stats (id, doc_count, total_length) values (1, 0, 0) on conflict (id) do nothing`);
  await tx.execute(sql`select 1 from search_stats where id = 1 for update`);
}

/** Deletes the postings of `docIds` and takes their terms off the document frequencies. */
async function dropPostings(tx: Db, docIds: number[]): Promise<void> {
  if (docIds.length === 0) return;
  const touched = await rows<{ term: string; df: number }>(
    tx,
    sql`with old as (delete from search_postings where doc_id = any(${arr(docIds, "bigint[]")}) returning term, tf),
         c as (select term, count(*)::int as n, sum(tf)::float8 as cf from old group by term)
    update search_terms t set df = t.df - c.n, cf = greatest(t.cf - c.cf, 0) from c where t.term = c.term
    returning t.term, t.df`,
  );
  // Terms no document has any more go (a second statement: one statement cannot update and then
  // delete the same row).
  const gone = touched.filter((t) => Number(t.df) <= 0).map((t) => t.term);
  if (gone.length > 0) await tx.execute(sql`delete from search_terms where term = any(${arr(gone, "text[]")})`);
}

async function insertDocuments(tx: Db, docs: PreparedDocument[]): Promise<Map<string, number>> {
  const cols = {
    url: docs.map((d) => d.url),
    owner: docs.map((d) => d.ownerAccountId),
    title: docs.map((d) => d.title),
    body: docs.map((d) => d.body),
    site: docs.map((d) => d.siteName),
    host: docs.map((d) => d.host),
    type: docs.map((d) => d.type),
    lang: docs.map((d) => d.language),
    pub: docs.map((d) => d.publishedAt),
    publisher: docs.map((d) => d.publisher),
    authors: docs.map((d) => (d.authors ? JSON.stringify(d.authors) : null)),
    venue: docs.map((d) => d.venue),
    year: docs.map((d) => d.year),
    pdf: docs.map((d) => d.pdfUrl),
    cited: docs.map((d) => d.citedByCount),
    length: docs.map((d) => d.length),
    hash: docs.map((d) => d.contentHash),
  };
  const inserted = await rows<{ id: string | number; url: string; owner_account_id: string }>(
    tx,
    sql`insert into search_documents (url, owner_account_id, title, body, site_name, host, type, language, published_at,
          publisher, authors, venue, year, pdf_url, cited_by_count, length, content_hash)
        select u.url, u.owner, u.title, u.body, u.site, u.host, u.type, u.lang, u.pub::date, u.publisher,
          case when u.authors is null then null
               else array(select jsonb_array_elements_text(u.authors::jsonb)) end,
          u.venue, u.year, u.pdf, u.cited, u.length, u.hash
        from unnest(${arr(cols.url, "text[]")}, ${arr(cols.owner, "text[]")}, ${arr(cols.title, "text[]")}, ${arr(cols.body, "text[]")},
          ${arr(cols.site, "text[]")}, ${arr(cols.host, "text[]")}, ${arr(cols.type, "text[]")},
          ${arr(cols.lang, "text[]")}, ${arr(cols.pub, "text[]")}, ${arr(cols.publisher, "text[]")},
          ${arr(cols.authors, "text[]")}, ${arr(cols.venue, "text[]")}, ${arr(cols.year, "int[]")},
          ${arr(cols.pdf, "text[]")}, ${arr(cols.cited, "int[]")}, ${arr(cols.length, "int[]")},
          ${arr(cols.hash, "text[]")})
          as u(url, owner, title, body, site, host, type, lang, pub, publisher, authors, venue, year, pdf, cited, length, hash)
        returning id, url, owner_account_id`,
  );
  return new Map(inserted.map((r) => [identity(r.owner_account_id, r.url), Number(r.id)]));
}

/** The k1 and b the stored impacts use (the defaults; a query may rank with others). */
const IMPACT_K1 = 0.9;
const IMPACT_B = 0.4;

async function insertPostings(tx: Db, docs: PreparedDocument[], ids: Map<string, number>, avgdl: number): Promise<void> {
  const terms: string[] = [];
  const owners: string[] = [];
  const docIds: number[] = [];
  const tfs: number[] = [];
  const lengths: number[] = [];
  for (const d of docs) {
    const id = ids.get(identity(d.ownerAccountId, d.url));
    if (id === undefined) throw new Error(`document ${d.url} was not inserted`);
    for (const [term, p] of d.postings) {
      terms.push(term);
      owners.push(d.ownerAccountId);
      docIds.push(id);
      tfs.push(p.tf);
      lengths.push(d.length);
    }
  }
  if (terms.length === 0) return;
  await tx.execute(sql`
    insert into search_postings (term, owner_account_id, doc_id, tf, doc_length, impact)
    select u.term, u.owner, u.doc_id, u.tf, u.len, u.tf / (u.tf + ${IMPACT_K1}::float8 * (1 - ${IMPACT_B}::float8
      + ${IMPACT_B}::float8 * u.len / greatest(${avgdl}::float8, 1)))
    from unnest(${arr(terms, "text[]")}, ${arr(owners, "text[]")}, ${arr(docIds, "bigint[]")}, ${arr(tfs, "real[]")},
      ${arr(lengths, "int[]")}) as u(term, owner, doc_id, tf, len)`);
  await tx.execute(sql`
    insert into search_terms (term, df, cf)
    select term, count(*)::int, sum(tf)::float8 from unnest(${arr(terms, "text[]")}, ${arr(tfs, "real[]")}) as u(term, tf)
    group by term order by term
    on conflict (term) do update set df = search_terms.df + excluded.df, cf = search_terms.cf + excluded.cf`);
}

async function upsertBatch(db: Db, batch: PreparedDocument[], result: UpsertResult): Promise<void> {
  await db.transaction(async (tx) => {
    await lockStats(tx);
    const existing = await rows<{
      id: string | number;
      url: string;
      owner_account_id: string;
      content_hash: string;
      length: number;
    }>(
      tx,
      sql`select d.id, d.url, d.owner_account_id, d.content_hash, d.length
        from unnest(${arr(
          batch.map((d) => d.url),
          "text[]",
        )}, ${arr(
          batch.map((d) => d.ownerAccountId),
          "text[]",
        )}) as k(url, owner)
        join search_documents d on d.url = k.url and d.owner_account_id = k.owner`,
    );
    const byIdentity = new Map(existing.map((e) => [identity(e.owner_account_id, e.url), e]));
    const write: PreparedDocument[] = [];
    const replaced: number[] = [];
    let lengthDelta = 0;
    let inserted = 0;
    for (const d of batch) {
      const old = byIdentity.get(identity(d.ownerAccountId, d.url));
      if (old && old.content_hash === d.contentHash) {
        result.unchanged++;
        continue;
      }
      if (old) {
        replaced.push(Number(old.id));
        lengthDelta -= Number(old.length);
        result.updated++;
      } else {
        inserted++;
        result.inserted++;
      }
      lengthDelta += d.length;
      write.push(d);
    }
    if (write.length === 0) return;
    await dropPostings(tx, replaced);
    if (replaced.length > 0) await tx.execute(sql`delete from search_documents where id = any(${arr(replaced, "bigint[]")})`);
    const ids = await insertDocuments(tx, write);
    // avgdl including this batch (the first batch of an empty index has no other).
    const [stats] = await rows<{ n: string | number; total: string | number }>(
      tx,
      sql`select doc_count as n, total_length as total from search_stats where id = 1`,
    );
    const n = Number(stats?.n ?? 0) + inserted;
    const avgdl = n > 0 ? (Number(stats?.total ?? 0) + lengthDelta) / n : 1;
    await insertPostings(tx, write, ids, avgdl);
    await tx.execute(sql`update search_stats set doc_count = doc_count + ${inserted},
      total_length = total_length + ${lengthDelta}, generation = generation + 1 where id = 1`);
  });
}

export function createIndexWriter(db: Db, ranking: RankingOptions): IndexWriter {
  return {
    async upsert(docs: IndexDocument[]): Promise<UpsertResult> {
      const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0, rejected: [] };
      // The last copy of an (owner, URL) in the call wins.
      const unique = new Map<string, PreparedDocument>();
      for (const doc of docs) {
        const p = prepareDocument(doc, ranking);
        if ("reason" in p) result.rejected.push({ url: String(doc?.url ?? ""), reason: p.reason });
        else {
          const id = identity(p.ownerAccountId, p.url);
          if (unique.has(id)) result.unchanged++;
          unique.delete(id);
          unique.set(id, p);
        }
      }
      const all = [...unique.values()];
      for (let i = 0; i < all.length; i += BATCH_SIZE) await upsertBatch(db, all.slice(i, i + BATCH_SIZE), result);
      return result;
    },

    async remove(url: string): Promise<boolean> {
      let key: string;
      try {
        key = normalizeUrl(url).toString();
      } catch {
        return false;
      }
      return db.transaction(async (tx) => {
        await lockStats(tx);
        // Every copy: an operator taking a URL down means it for every account. (No index leads
        // with url, so this scans the documents: a rare operator command, not a request path.)
        const docs = await rows<{ id: string | number; length: number }>(
          tx,
          sql`select id, length from search_documents where url = ${key}`,
        );
        if (docs.length === 0) return false;
        const ids = docs.map((d) => Number(d.id));
        const length = docs.reduce((n, d) => n + Number(d.length), 0);
        await dropPostings(tx, ids);
        await tx.execute(sql`delete from search_documents where id = any(${arr(ids, "bigint[]")})`);
        await tx.execute(sql`update search_stats set doc_count = doc_count - ${docs.length},
          total_length = total_length - ${length}, generation = generation + 1 where id = 1`);
        return true;
      });
    },

    async count(): Promise<number> {
      const [r] = await rows<{ n: string | number }>(db, sql`select count(*) as n from search_documents`);
      return Number(r?.n ?? 0);
    },
  };
}

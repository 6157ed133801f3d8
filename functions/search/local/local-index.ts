/**
 * The local search index (always on, the embedded default): documents, postings and statistics in
 * the database (PGlite, Postgres or Neon alike), BM25 computed there (ranking.ts), query-biased
 * snippets cut here (snippet.ts). Each search sees the global documents and the searching
 * account's own.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/db.ts";
import { type Clock, systemClock } from "../../lib/clock.ts";
import { makeSnippet } from "../snippet.ts";
import type { ProviderResult, SearchHit, SearchProvider, SearchQuery, SearchViewer } from "../types.ts";
import type { IndexWriter } from "./document.ts";
import { DEFAULT_RANKING, type RankingOptions } from "./prepare.ts";
import { type Bm25Params, DEFAULT_BM25, type DocumentRow } from "./ranking.ts";
import { DEFAULT_REGULARISATION, type RegularisationParams } from "./regularise.ts";
import { DEFAULT_RERANK, type RerankParams, rerankedPage } from "./rerank.ts";
import { createIndexWriter } from "./writer.ts";

export interface LocalIndexOptions {
  db: Db;
  clock?: Clock;
  /** BM25 parameters (default k1 0.9, b 0.4). */
  bm25?: Partial<Bm25Params>;
  /** Indexing options (title weight); changing them re-indexes documents on their next upsert. */
  ranking?: Partial<RankingOptions>;
  /** Reordering of the first pages by the candidates' likeness (regularise.ts); weight 0: BM25's order. */
  regularisation?: Partial<RegularisationParams>;
  /** The learned reordering of the same candidates (rerank.ts); weight 0: the regularised order. */
  rerank?: Partial<RerankParams>;
}

export interface LocalIndex {
  writer: IndexWriter;
  provider: SearchProvider;
  /**
   * VACUUM ANALYZE of the index tables, after a bulk import: planner statistics, and the visibility
   * map that lets BM25 read postings with index-only scans (PGlite has no autovacuum).
   */
  maintain(): Promise<void>;
}

function toHit(row: DocumentRow, q: SearchQuery, rank: number): SearchHit {
  const hit: SearchHit = {
    url: row.url,
    title: row.title,
    // The document was matched with the query analysed in its own language (ranking.ts).
    snippet: makeSnippet(row.body || row.title, q.text, row.language),
    siteName: row.site_name,
    rank,
  };
  if (row.published_at) hit.date = row.published_at;
  if (row.publisher) hit.publisher = row.publisher;
  if (row.authors?.length) hit.authors = row.authors;
  if (row.venue) hit.venue = row.venue;
  if (row.year !== null) hit.year = row.year;
  if (row.cited_by_count !== null) hit.citedByCount = row.cited_by_count;
  if (row.pdf_url) hit.pdfUrl = row.pdf_url;
  return hit;
}

export function createLocalIndex(opts: LocalIndexOptions): LocalIndex {
  const clock = opts.clock ?? systemClock;
  const bm25: Bm25Params = { ...DEFAULT_BM25, ...opts.bm25 };
  const ranking: RankingOptions = { ...DEFAULT_RANKING, ...opts.ranking };
  const regularisation: RegularisationParams = { ...DEFAULT_REGULARISATION, ...opts.regularisation };
  const rerank: RerankParams = { ...DEFAULT_RERANK, ...opts.rerank };
  const provider: SearchProvider = {
    name: "local",
    supports: () => true,
    // Always asked: a page the account has just fetched or imported is found at once.
    cacheable: false,
    async search(q: SearchQuery, signal: AbortSignal, viewer?: SearchViewer): Promise<ProviderResult> {
      signal.throwIfAborted();
      // Without a viewer bm25Page throws: the index holds pages private to accounts.
      const rows = await rerankedPage(
        opts.db,
        q,
        viewer as SearchViewer,
        clock,
        bm25,
        regularisation,
        ranking.titleWeight,
        rerank,
      );
      const first = q.page * 10;
      // No total: counting every match would read each candidate's document row (ranking.ts).
      return { hits: rows.map((r, i) => toHit(r, q, first + i + 1)) };
    },
  };
  const maintain = async () => {
    await opts.db.execute(sql`vacuum analyze search_postings, search_terms, search_documents, search_stats`);
  };
  return { writer: createIndexWriter(opts.db, ranking), provider, maintain };
}

import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Who may see a document: GLOBAL_OWNER (every account) or one account's id. A sentinel rather than
 * null because the postings index orders a term's postings by impact within (term, owner), and an
 * ordered index scan needs an equality on owner (`is null` does not give the planner one).
 */
export const GLOBAL_OWNER = "";

/**
 * The local search index (issue: Search API): one row per (owner, normalised URL). Fed by
 * `osprey index add` (crawl through the fetch pipeline) and `osprey index import --jsonl`, which are
 * global, and by every successful fetch, which is private to the fetching account unless the
 * operator shares public pages (OSPREY_SEARCH_SHARE_PUBLIC_PAGES) and the page is public by every
 * sign (search/page-visibility.ts). Two accounts fetching one URL get a copy each.
 */
export const searchDocuments = pgTable(
  "search_documents",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** Normalised URL (lower-case scheme and host, no fragment, no default port). */
    url: text("url").notNull(),
    /**
     * GLOBAL_OWNER, or the account that fetched the page (no foreign key: deleting a document must
     * go through the writer, which maintains df and the collection stats).
     */
    ownerAccountId: text("owner_account_id").notNull().default(GLOBAL_OWNER),
    title: text("title").notNull().default(""),
    /** The document's text as indexed (snippets are cut from it). */
    body: text("body").notNull().default(""),
    siteName: text("site_name").notNull().default(""),
    /** Registrable host, lower-case, for domain filters (exact or subdomain). */
    host: text("host").notNull(),
    /** web | news | research_paper (DOMAIN_TYPES, schema/search.ts). */
    type: text("type").notNull().default("web"),
    /** BCP 47 primary language (e.g. en); the analyzer (stemmer, stop-words) used for it. */
    language: text("language").notNull().default("en"),
    publishedAt: date("published_at", { mode: "string" }),
    publisher: text("publisher"),
    authors: text("authors").array(),
    venue: text("venue"),
    year: integer("year"),
    pdfUrl: text("pdf_url"),
    citedByCount: integer("cited_by_count"),
    /** Indexed length in terms (BM25's document length). */
    length: integer("length").notNull().default(0),
    /** Hash of what was indexed: re-indexing identical content is skipped. */
    contentHash: text("content_hash").notNull().default(""),
    indexedAt: ts("indexed_at").notNull().defaultNow(),
  },
  (t) => [
    check("search_documents_type_check", sql`${t.type} in ('web', 'news', 'research_paper')`),
    // The identity. Owner first: a query collects the global documents its account's own copies
    // replace by walking that account's range (ranking.ts), never the whole table.
    uniqueIndex("search_documents_owner_url_idx").on(t.ownerAccountId, t.url),
    // The filter indexes end in id so that a filtered query collects the ids it may rank with an
    // index-only scan (ranking.ts), not a pass over the documents' text.
    index("search_documents_host_idx").on(t.host),
    // Subdomains of a filtered domain: the reversed host starts with the reversed ".domain".
    index("search_documents_rhost_idx").on(sql`reverse(${t.host}) text_pattern_ops`),
    // host last: ranking reads each candidate's language and host (the location bias) from this
    // index alone, never the documents' rows.
    index("search_documents_type_idx").on(t.type, t.language, t.id, t.host),
    index("search_documents_published_idx").on(t.publishedAt, t.type, t.id),
    index("search_documents_year_idx").on(t.year, t.type, t.id),
  ],
);

/** Inverted index: one row per (term, document) with the term's frequency in the document. */
export const searchPostings = pgTable(
  "search_postings",
  {
    term: text("term").notNull(),
    /**
     * search_documents.id. No foreign key: the writer deletes a document's postings itself (it must
     * read them to maintain df), and a per-row FK check costs a third of bulk-import time.
     */
    docId: bigint("doc_id", { mode: "number" }).notNull(),
    /** The document's owner_account_id, copied so a term's postings are read per visibility. */
    ownerAccountId: text("owner_account_id").notNull().default(GLOBAL_OWNER),
    /** Term frequency (title occurrences may be weighted: see the ranking module). */
    tf: real("tf").notNull(),
    /** Document length copied here so scoring needs no join for the BM25 length norm. */
    docLength: integer("doc_length").notNull(),
    /**
     * BM25's tf part, tf / (tf + k1·(1 - b + b·dl/avgdl)), with avgdl as it was at indexing: only
     * orders a term's postings, so a query can read the best few thousand of a very common term.
     */
    impact: real("impact").notNull(),
  },
  (t) => [
    // No primary key: (term, doc_id) is unique by construction (the writer replaces a document's
    // postings whole under the stats-row lock). This covering index gives a term's postings best
    // first with an index-only scan instead of one heap visit per posting, separately for the
    // global documents and for one account's own: the per-term cap then counts only documents the
    // searching account may see, so other accounts' pages never crowd its results out.
    index("search_postings_term_owner_impact_idx").on(t.term, t.ownerAccountId, t.impact.desc(), t.docId, t.tf, t.docLength),
    index("search_postings_doc_idx").on(t.docId),
  ],
);

/**
 * Document frequency per term (BM25's IDF) and its collection frequency (the sum of its postings'
 * title-weighted tf: cf / df, the term's burstiness, weighs it in the query: ranking.ts).
 */
export const searchTerms = pgTable("search_terms", {
  term: text("term").primaryKey(),
  df: integer("df").notNull(),
  cf: doublePrecision("cf").notNull().default(0),
});

/** Collection statistics (one row, id 1): document count and total length, for IDF and avgdl. */
export const searchStats = pgTable("search_stats", {
  id: integer("id").primaryKey(),
  docCount: bigint("doc_count", { mode: "number" }).notNull().default(0),
  totalLength: bigint("total_length", { mode: "number" }).notNull().default(0),
  /**
   * Moved on by every write that changes a df (the writer's batches and removals): a search process
   * keeps the df it has read for as long as the index it ranks on is at the same generation
   * (regularise.ts's documentFrequencies), as Lucene keeps term statistics per reader.
   */
  generation: bigint("generation", { mode: "number" }).notNull().default(0),
});

/** Spec 2.9: one row per search request. */
export const searchUsage = pgTable(
  "search_usage",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    requestId: text("request_id").notNull(),
    query: text("query").notNull(),
    statusCode: integer("status_code").notNull(),
    resultCount: integer("result_count").notNull().default(0),
    results: jsonb("results")
      .$type<{ position: number; site_name: string; snippet: string; title: string; url: string }[]>()
      .notNull(),
    /** True when the answer came from the short-lived result cache; null when the request failed. */
    cached: boolean("cached"),
    responseSizeBytes: integer("response_size_bytes").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("search_usage_account_idx").on(t.accountId, t.createdAt)],
);

/** Short-lived result cache per normalised request (shared by every edge instance). */
export const searchCache = pgTable(
  "search_cache",
  {
    key: text("key").primaryKey(),
    response: jsonb("response").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("search_cache_expires_idx").on(t.expiresAt)],
);

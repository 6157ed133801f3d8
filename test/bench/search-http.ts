/**
 * What the search benchmark times, side by side on the same database and queries:
 * - ours over HTTP: the real app (createLocalApp: auth, validation, rate limit, providers, usage
 *   row) served by @hono/node-server on 127.0.0.1, asked with fetch() as a client would;
 * - ours in process: the local index's provider alone (the ranking query and snippets), to show
 *   what the HTTP surface adds;
 * - the anchor: Postgres' own full-text search, a GIN index over to_tsvector('english', title ||
 *   body) ranked by ts_rank with the query's lexemes OR-ed: what an application on Postgres gets
 *   without a search engine of its own.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { sql } from "drizzle-orm";
import type { Db } from "../../functions/db/db.ts";
import type { createLocalIndex } from "../../functions/search/local/local-index.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import type { DomainType } from "../../schema/search.ts";
import { createTestContext } from "../helpers/app.ts";

/** A search as the bench runs it: the result URLs, best first. */
export type SearchFn = (query: string, domainType: DomainType, filters?: Record<string, string>) => Promise<string[]>;

export interface SearchServer {
  /** GET /search over HTTP. */
  http: SearchFn;
  /** The local index's provider called directly, as the search service calls it. */
  direct: SearchFn;
  close(): Promise<void>;
}

/**
 * The app over `db` with the local index as its only provider, served on a loopback port, for a
 * pro account whose per-minute limit is lifted (the bench sends hundreds of queries a minute) and
 * with the result cache off (every query is timed end to end).
 */
export async function startSearchServer(
  db: Db,
  provider: ReturnType<typeof createLocalIndex>["provider"],
): Promise<SearchServer> {
  const ctx = createTestContext(db, { search: { providers: [provider], cacheTtlMs: 0 } });
  const { key, accountId } = await ctx.newKey({ plan: "pro" });
  await ctx.services.accounts.setLimits(accountId, { searchRpm: 1_000_000 });
  const server = serve({ fetch: ctx.app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    async http(text, domainType, filters = {}) {
      const params = new URLSearchParams({ query: text, domain_type: domainType, ...filters });
      const res = await fetch(`${base}/search?${params}`, { headers: { "x-api-key": key } });
      if (res.status !== 200) throw new Error(`GET /search answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { results: { url: string }[] };
      return body.results.map((r) => r.url);
    },
    async direct(text, domainType, filters = {}) {
      // The filters the bench sends, as the route would parse them.
      const q: SearchQuery = {
        text,
        location: "US",
        language: filters.language ?? "en",
        includeDomains: filters.include_domains ? filters.include_domains.split(",") : [],
        excludeDomains: [],
        domainType,
        afterDate: filters.after_date,
        pubYearMin: filters.pub_year_min ? Number(filters.pub_year_min) : undefined,
        page: 0,
      };
      const r = await provider.search(q, new AbortController().signal, { accountId });
      return r.hits.map((h) => h.url);
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The anchor: a copy of the documents' text as tsvectors under a GIN index (built once, timed),
 * queried with the query's English lexemes OR-ed and ordered by ts_rank (normalisation 1, as the
 * data set's README measured it).
 */
export async function pgFullTextAnchor(db: Db): Promise<{ buildMs: number; search: SearchFn }> {
  const t0 = performance.now();
  await db.execute(sql`drop table if exists bench_fts`);
  await db.execute(sql`create table bench_fts as
    select id, url, type, to_tsvector('english', title || ' ' || body) as tsv from search_documents`);
  await db.execute(sql`create index bench_fts_tsv_idx on bench_fts using gin (tsv)`);
  await db.execute(sql`analyze bench_fts`);
  const buildMs = performance.now() - t0;
  return {
    buildMs,
    async search(text, domainType) {
      const result = await db.execute(sql`
        with q as (select nullif(replace(plainto_tsquery('english', ${text})::text, '&', '|'), '')::tsquery as q)
        select url from bench_fts, q where q.q is not null and tsv @@ q.q and type = ${domainType}
        order by ts_rank(tsv, q.q, 1) desc, id limit 10`);
      return (result as unknown as { rows: { url: string }[] }).rows.map((r) => r.url);
    },
  };
}

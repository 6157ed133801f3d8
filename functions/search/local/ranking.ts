/**
 * BM25 computed in the database (Lucene's formula): for each distinct query term t with document
 * frequency df among N documents, idf = ln(1 + (N - df + 0.5) / (df + 0.5)); a document scores
 * Σ idf · tf / (tf + k1 · (1 - b + b · dl / avgdl)). A term the query repeats counts once: on the
 * SciFact train queries (168 of 809 repeat a term) weighing repeats (qtf ·, as Lucene's boolean
 * query sums repeated clauses) gives nDCG@10 0.7006 (even ids 0.6819, odd 0.7203), √qtf 0.7040,
 * once 0.7060 (0.6895 / 0.7234). N and avgdl come from search_stats, df
 * from search_terms, tf and dl from the postings, so every instance ranks identically with no
 * index in memory. Filters apply before ordering; a page is OFFSET page·PAGE_SIZE.
 *
 * Term weights (TERM_WEIGHTING; Bendersky, Metzler & Croft 2010, learning concept importance from
 * generic term features): each term's idf is multiplied by (cf / df)^0.5, its burstiness (its mean
 * title-weighted tf in the documents holding it: a topical term recurs in the documents it is in, a
 * generic one such as "increas" or "risk" is used once in passing), and by e^0.6 ≈ 1.82 when the
 * query spells it with a digit (il-6, brca1, 10%). cf is kept in search_terms by the writer's df
 * statements (migration 0014 fills it). Learnt as w(t) = idf · exp(θ · φ(t)) by coordinate ascent
 * on the BM25 order's nDCG@10 (809 SciFact train queries): BM25 alone 0.7060 -> 0.7209 in-sample;
 * held out (θ learnt on one half of the query ids, measured on the other) +0.0067 and +0.0146, over
 * 10 random halvings +0.0113 on average (all positive). More: rerank.ts's header, EXPERIMENTS.md.
 *
 * A page is found without reading every candidate's document row (the filters, the language check
 * and the boosts need it): the candidates are walked best BM25 score first, reading rows until
 * `need` (the pages up to this one) pass; a candidate outside those ranks at most its score times
 * MAX_BOOST, so only those whose score times MAX_BOOST reaches the need-th best boosted score among
 * them can still take a place, and only their rows are read again. The order is the one a full sort
 * of every candidate gives; there is no count of all matches (it would read every row).
 *
 * An account sees the global documents and its own (owner_account_id, on documents and postings);
 * where it holds its own copy of a URL that also has a global copy, only its own. N, avgdl, df and cf are
 * collection-wide (every copy of every account counts), so they move a little with pages other
 * accounts fetch; no other account's URL, title or text can reach a result.
 *
 * Language and location rank, never filter (as Brave's search_lang/country and SearXNG's language
 * do). The query is analysed in every language the index holds documents of the query's type in
 * (documents are analysed in their own language: prepare.ts; the languages the database last
 * reported are assumed and checked by the same statement, so a search is one round trip: see
 * knownLanguages), and a document is scored with the terms of its own language's analysis, so a
 * Portuguese query finds Portuguese pages whatever `language` says and an English index answers
 * `language=fr` with its English pages. Documents in the requested language, and pages on the
 * requested country's top-level domain, then rank higher (RANK_BOOST); `score` stays BM25's.
 * What else was tried, with its figures: EXPERIMENTS.md in this folder.
 */
import { type SQL, sql } from "drizzle-orm";
import { GLOBAL_OWNER } from "../../../schema/tables/search.ts";
import type { Db } from "../../db/db.ts";
import { executeGeneric } from "../../db/generic-plan.ts";
import type { Clock } from "../../lib/clock.ts";
import { termsOfTokens, tokenize } from "../analyze.ts";
import { PAGE_SIZE, type SearchQuery, type SearchViewer } from "../types.ts";

export interface Bm25Params {
  k1: number;
  b: number;
  /**
   * A term's postings read per query, best impact first. Terms in fewer documents are scored
   * exactly; for a more common term (low IDF) the documents past this many contribute nothing,
   * which bounds query time on large indexes at a small cost in recall. Under a narrowing filter
   * (see `narrows`) the cap counts only the documents that pass the filter, so a small slice of a
   * large index is not starved by the best postings of documents the filter drops. The cap is
   * counted separately for the global documents and for the searching account's own, so other
   * accounts' pages never take its places either, and a global copy the account's own copy of the
   * URL replaces is skipped as it is read, so it takes no place either.
   */
  maxPostingsPerTerm: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 0.9, b: 0.4, maxPostingsPerTerm: 5000 };

/**
 * Each query term's idf is weighed by two generic features of the term (see the top of this file):
 * × (cf / df)^burstiness, its mean tf in the documents holding it (cf and df from search_terms), and
 * × digit when the query spells it with a digit (il-6, brca1, 5-ht, 10%).
 */
export const TERM_WEIGHTING = { digit: Math.exp(0.6), burstiness: 0.5 } as const;

/** A query word holding a digit. */
const DIGIT = /\p{N}/u;

/**
 * The biases of a query's language and location, as factors on the BM25 score: a document in the
 * requested language scores ×1.25, a page on the requested country's top-level domain ×1.1. Small
 * enough that a clearly better match still wins, enough to order equal matches. (A judgement, not
 * tuned: SciFact is English on one host, so every document there gets the same factor.)
 */
export const RANK_BOOST = { language: 1.25, location: 1.1 } as const;

/** The largest factor RANK_BOOST gives a document: no document ranks above its BM25 score times this. */
const MAX_BOOST = RANK_BOOST.language * RANK_BOOST.location;

export interface DocumentRow {
  id: string | number;
  url: string;
  title: string;
  body: string;
  site_name: string;
  language: string;
  published_at: string | null;
  publisher: string | null;
  authors: string[] | null;
  venue: string | null;
  year: number | null;
  pdf_url: string | null;
  cited_by_count: number | null;
  /** BM25 (ordering also weighs language and location: RANK_BOOST). */
  score: number;
  /** The score times the language and location factors: what the page is ordered by. */
  ranked: number;
  /** The index ranked on, on every row: search_stats' generation, document count and total length
   * (regularise.ts keeps the df it has read while this stays the same). */
  index_version?: string | null;
}

const arr = (values: unknown[], type: string): SQL => sql`${sql.param(values)}::${sql.raw(type)}`;

/** `s` as a LIKE pattern matching itself only (\\, % and _ escaped). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, "\\$&");

/**
 * Matches a host exactly or as a subdomain of `domain` (it ends in ".domain": its reverse starts
 * with the reversed ".domain", a prefix search on search_documents_rhost_idx).
 */
const hostMatches = (domain: string): SQL =>
  sql`(d.host = ${domain} or reverse(d.host) like ${`${likeLiteral([...`.${domain}`].reverse().join(""))}%`})`;

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

export function filterSql(q: SearchQuery, clock: Clock): SQL {
  const parts: SQL[] = [sql`d.type = ${q.domainType}`];
  const include = q.includeDomains.filter(Boolean);
  if (include.length > 0) parts.push(sql`(${sql.join(include.map(hostMatches), sql` or `)})`);
  for (const domain of q.excludeDomains.filter(Boolean)) parts.push(sql`not ${hostMatches(domain)}`);
  if (q.recencyMinutes !== undefined) {
    parts.push(sql`d.published_at >= ${day(clock.now().getTime() - q.recencyMinutes * 60_000)}::date`);
  }
  if (q.afterDate) parts.push(sql`d.published_at >= ${q.afterDate}::date`);
  if (q.beforeDate) parts.push(sql`d.published_at <= ${q.beforeDate}::date`);
  if (q.pubYearMin !== undefined) parts.push(sql`d.year >= ${q.pubYearMin}`);
  if (q.pubYearMax !== undefined) parts.push(sql`d.year <= ${q.pubYearMax}`);
  return sql.join(parts, sql` and `);
}

/**
 * Whether the filter can drop a large share of the index: any domain, date or year filter, or a
 * type other than web (an index is mostly web pages). Only then are capped terms read through the
 * filter, which costs a document lookup per posting read.
 */
export function narrows(q: SearchQuery): boolean {
  return q.domainType !== "web" || filtersBeyondType(q);
}

/**
 * Whether a domain, date or year filter applies: such a filter may keep a handful of documents, so
 * every posting read is checked against its ids (a hash) before it is scored. A type alone keeps a
 * share of the index (hashing all of its ids costs more than it saves): its candidates are checked
 * on the rows the walk in score order reads, which meets the page's documents soon enough.
 */
function filtersBeyondType(q: SearchQuery): boolean {
  return (
    q.includeDomains.some(Boolean) ||
    q.excludeDomains.some(Boolean) ||
    q.recencyMinutes !== undefined ||
    q.afterDate !== undefined ||
    q.beforeDate !== undefined ||
    q.pubYearMin !== undefined ||
    q.pubYearMax !== undefined
  );
}

/**
 * A term's postings for scoring, among the documents `owner` (the global ones, or one account's)
 * holds: all of them when the term is in at most `cap` documents, else the `cap` best by impact
 * (among the documents the filter keeps, when it narrows: the ids in `f`, read once per query and
 * probed as a hash, so no document row is visited per posting). Each branch is one ordered range
 * of search_postings_term_owner_impact_idx: the owner is an equality, so the best come first.
 */
function postingsOf(q: SearchQuery, cap: number, owner: string): SQL {
  // A domain, date or year filter may keep a handful of documents: postings of the others are
  // dropped by a hash probe before they are scored, not after.
  const kept = filtersBeyondType(q) ? sql` and p.doc_id in (select id from f)` : sql``;
  // A term in at most `cap` documents has all its postings read: the global copies of URLs the
  // account holds its own copy of are dropped with the candidates' rows (rowCheck), 30 to 50 probes
  // rather than one per posting. Past the cap, they are skipped as they are read, so the cap counts
  // only documents the account sees (and, under a narrowing filter, only those the filter keeps).
  const visible = owner === GLOBAL_OWNER ? sql` and p.doc_id not in (select id from shadowed)` : sql``;
  const capped = narrows(q) ? sql` and p.doc_id in (select id from f)` : sql``;
  return sql`(select doc_id, tf, doc_length from search_postings p
      where p.term = w.term and p.owner_account_id = ${owner} and w.df <= ${cap}${kept})
    union all
    (select p.doc_id, p.tf, p.doc_length from search_postings p
     where p.term = w.term and p.owner_account_id = ${owner} and w.df > ${cap}${visible}${capped}
     order by p.impact desc nulls last limit ${cap})`;
}

/**
 * The global documents `account` holds a copy of itself (its own copy answers in their place): a
 * walk of the account's range of search_documents_owner_url_idx with one probe per document (offset
 * 0: never a hash join over every global document, which a generic plan chose), so it costs per
 * page the account fetched, not per candidate. Visibility is decided from the postings'
 * owner and this set: the candidates' document rows are then only read for the filters, as before
 * ownership, through the filter indexes.
 */
function shadowedSql(account: string): SQL {
  return sql`select g.id from search_documents o cross join lateral (select g.id from search_documents g
      where g.owner_account_id = ${GLOBAL_OWNER} and g.url = o.url offset 0) g where o.owner_account_id = ${account}`;
}

/** The viewer's account id; a missing one is a programming error, never "global only". */
function viewerAccount(viewer: SearchViewer | undefined): string {
  const id = viewer?.accountId;
  if (typeof id !== "string" || id === GLOBAL_OWNER) throw new Error("a local index search needs the searching account");
  return id;
}

/**
 * The languages documents of `type` are indexed in, as the CTE `l` (its last row is a null): a skip
 * scan of search_documents_type_idx (type, language, id), one index probe per language, so it costs
 * the same at any index size.
 */
function languagesCte(type: string): SQL {
  return sql`l(language) as (
      (select language from search_documents where type = ${type} order by language limit 1)
      union all
      select (select d.language from search_documents d where d.type = ${type} and d.language > l.language
              order by d.language limit 1)
      from l where l.language is not null)`;
}

/** The languages documents of `type` are indexed in (languagesCte), in order. */
export async function indexedLanguages(db: Db, type: string): Promise<string[]> {
  const result = await db.execute(sql`with recursive ${languagesCte(type)} select language from l where language is not null`);
  return (result as unknown as { rows: { language: string }[] }).rows.map((r) => r.language);
}

/**
 * The languages each database last reported per type. A page is ranked assuming them, and the same
 * statement reads the languages again: where they differ (a document in a new language came in, or
 * the last one of a language went), the page is ranked again with the new ones. So a search is one
 * round trip, not two, and its terms are always those of the languages its statement saw.
 */
const knownLanguages = new WeakMap<Db, Map<string, string[]>>();

/**
 * The query's distinct terms in each of `languages` (a repeated term counts once: see the top of
 * this file), as parallel arrays of term and language.
 */
export function queryTerms(q: SearchQuery, languages: string[]): { terms: string[]; langs: string[]; factors: number[] } {
  const terms: string[] = [];
  const langs: string[] = [];
  const factors: number[] = [];
  const words = tokenize(q.text);
  for (const language of languages) {
    const factor = new Map<string, number>();
    termsOfTokens(words, language).forEach((term, i) => {
      if (!term) return;
      const f = DIGIT.test(words[i] as string) ? TERM_WEIGHTING.digit : 1;
      factor.set(term, Math.max(factor.get(term) ?? 1, f));
    });
    for (const [term, f] of factor) {
      terms.push(term);
      langs.push(language);
      factors.push(f);
    }
  }
  return { terms, langs, factors };
}

/** The top-level domains of a country's pages: its ccTLD (GB also .uk; the US also .gov, .edu, .mil). */
export function countryDomains(location: string): string[] {
  const cc = location.toLowerCase();
  if (cc === "gb") return ["uk", "gb"];
  if (cc === "us") return ["us", "gov", "edu", "mil"];
  return [cc];
}

/** The factor the query's language and location give a candidate document `d` (RANK_BOOST). */
function boostSql(q: SearchQuery): SQL {
  const tlds = countryDomains(q.location).map((t) => sql`d.host like ${`%.${likeLiteral(t)}`}`);
  return sql`(case when d.language = ${q.language} then ${RANK_BOOST.language}::float8 else 1 end
    * case when ${sql.join(tlds, sql` or `)} then ${RANK_BOOST.location}::float8 else 1 end)`;
}

/**
 * One page of the documents `viewer` may see, ranked by BM25 (ties by id) weighted by the query's
 * language and location (RANK_BOOST), each with its BM25 score. Each document is scored with the query's terms in its own language: postings
 * are summed per (document, analysis language) and only the sum for the document's language
 * counts. (A term two analyses share has its postings read once per language: with one language
 * indexed, the usual case, this is the single-language query it always was.)
 */
export async function bm25Page(
  db: Db,
  q: SearchQuery,
  viewer: SearchViewer,
  clock: Clock,
  params: Bm25Params,
  limit = PAGE_SIZE,
): Promise<DocumentRow[]> {
  const account = viewerAccount(viewer);
  let known = knownLanguages.get(db);
  if (!known) {
    known = new Map();
    knownLanguages.set(db, known);
  }
  let languages = known.get(q.domainType);
  // A query with no term in the assumed languages may have some in the index's current ones.
  if (!languages || queryTerms(q, languages).terms.length === 0) {
    languages = await indexedLanguages(db, q.domainType);
    known.set(q.domainType, languages);
    if (queryTerms(q, languages).terms.length === 0) return [];
  }
  let page = await rankedPage(db, q, account, clock, params, limit, languages);
  if (page.languages.join(",") !== languages.join(",")) {
    known.set(q.domainType, page.languages);
    page = await rankedPage(db, q, account, clock, params, limit, page.languages);
  }
  return page.rows;
}

/** bm25Page with the index's `languages` assumed; also the languages its statement read. */
async function rankedPage(
  db: Db,
  q: SearchQuery,
  account: string,
  clock: Clock,
  params: Bm25Params,
  limit: number,
  languages: string[],
): Promise<{ rows: DocumentRow[]; languages: string[] }> {
  const { terms, langs, factors } = queryTerms(q, languages);
  if (terms.length === 0) return { rows: [], languages };
  const { k1, b } = params;
  const cap = params.maxPostingsPerTerm;
  // Languages travel as their 1-based place in `languages`: the per-document sums group on an int.
  const places = langs.map((l) => languages.indexOf(l) + 1);
  // With one language every candidate is in it: no check, so the plan stays the single-language
  // one (a hash join on an index-only scan of the candidates, not a lookup per candidate).
  const need = q.page * PAGE_SIZE + limit;
  const ownLanguage = languages.length > 1 ? sql` and d.language = (${arr(languages, "text[]")})[s.lang]` : sql``;
  // A candidate's document row, read by its id alone (offset 0 keeps the planner from turning the
  // probe into a join over every document the filter keeps): its boost when it passes the filters
  // and is in the language it was scored in, unless it is a global copy the account's own replaces.
  const rowCheck = sql`select ${boostSql(q)} as boost from search_documents d
    where d.id = s.doc_id and ${filterSql(q, clock)}${ownLanguage} and d.id not in (select id from shadowed) offset 0`;
  // Planned once per shape (generic-plan.ts), but under a domain filter: its LIKE prefix needs the pattern.
  const generic = !q.includeDomains.some(Boolean) && !q.excludeDomains.some(Boolean);
  const result = await executeGeneric(
    db,
    sql`
    with recursive ${languagesCte(q.domainType)},
    ${narrows(q) ? sql`f as materialized (select d.id from search_documents d where ${filterSql(q, clock)}),` : sql``}
    st as (
      select n, ${k1}::float8 * (1 - ${b}::float8) as k0, ${k1}::float8 * ${b}::float8 / avgdl as kl, version
      from (select greatest(doc_count, 1)::float8 as n, greatest(total_length::float8 / greatest(doc_count, 1), 1) as avgdl,
              concat_ws(' ', generation, doc_count, total_length) as version
            from search_stats where id = 1) c),
    qt as (select term, lang, f from unnest(${arr(terms, "text[]")}, ${arr(places, "int[]")}, ${arr(factors, "float8[]")})
      as u(term, lang, f)),
    -- Materialized: inlined, each posting computed its term's weight again (half the time on SciFact).
    w as materialized (
      select qt.term, qt.lang, t.df, ln(1 + (st.n - t.df + 0.5) / (t.df + 0.5)) * qt.f
        * power(greatest(t.cf, t.df)::float8 / greatest(t.df, 1), ${TERM_WEIGHTING.burstiness}::float8) as wt
      from qt join search_terms t on t.term = qt.term cross join st),
    shadowed as materialized (${shadowedSql(account)}),
    s as (
      select p.doc_id, w.lang,
        sum(w.wt * p.tf / (p.tf + st.k0 + st.kl * p.doc_length)) as score
      from w cross join st cross join lateral (
        ${postingsOf(q, cap, GLOBAL_OWNER)} union all ${postingsOf(q, cap, account)}) p
      group by p.doc_id, w.lang),
    top as materialized (
      select s.doc_id, s.score, s.score * k.boost as ranked
      from (select * from s order by score desc, doc_id) s
      cross join lateral (${rowCheck}) k
      order by s.score desc, s.doc_id
      limit ${need}),
    r as (
      select doc_id, score, ranked from top where (select count(*) from top) < ${need}
      union all
      select s.doc_id, s.score, s.score * k.boost as ranked
      from s cross join lateral (${rowCheck}) k
      where (select count(*) from top) >= ${need}
        and s.score * ${MAX_BOOST * (1 + 1e-9)}::float8 >= (select min(ranked) from top)),
    pg as (select doc_id, score, ranked from r order by ranked desc, doc_id limit ${limit} offset ${q.page * PAGE_SIZE}),
    res as (
      select d.id, d.url, d.title, d.body, d.site_name, d.language, d.published_at::text as published_at, d.publisher,
        d.authors, d.venue, d.year, d.pdf_url, d.cited_by_count, pg.score, pg.ranked
      from pg join search_documents d on d.id = pg.doc_id)
    select array(select language from l where language is not null) as indexed_languages, res.id, res.url, res.title,
      res.body, res.site_name, res.language, res.published_at, res.publisher, res.authors, res.venue, res.year,
      res.pdf_url, res.cited_by_count, res.score, res.ranked, (select version from st) as index_version
    from (select 1) one left join res on true
    order by res.ranked desc, res.id`,
    generic,
  );
  // One row even for an empty page (it carries the languages): its id is null.
  const rows = (result as unknown as { rows: (DocumentRow & { indexed_languages: string[] })[] }).rows;
  return {
    rows: rows.filter((r) => r.id !== null).map(({ indexed_languages: _l, ...row }) => row),
    languages: rows[0]?.indexed_languages ?? [],
  };
}

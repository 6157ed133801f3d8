/**
 * Score regularisation of the first pages (Diaz, "Regularizing ad hoc retrieval scores", CIKM 2005;
 * the cluster hypothesis: documents like each other tend to be relevant to the same queries). The
 * best `candidates` documents by BM25 (times the language and location boost) are reordered by
 *   (1 - weight) · s(d) + weight · Σ_j cos(d, j) · s(j) / Σ_j cos(d, j)
 * over the `neighbours` candidates most like d, where s is the score over the best score and cos
 * the cosine of the documents' (1 + ln tf) · idf vectors (title-weighted tf, as their postings hold
 * it; the index's df: see candidateVectors). A document that shares its vocabulary with other strong matches rises; one
 * that matches the query's words alone, in a text about something else, falls a little.
 *
 * Chosen in memory on the even SciFact train query ids, odd ids held out (nDCG@10; BM25 alone 0.7060,
 * even 0.6895, odd 0.7234), with the vectors below: 30 candidates, 2 neighbours, weight 0.2 give
 * 0.7147 (0.6962 / 0.7342); weight 0.3 0.7126 (0.6932 / 0.7329); 20, 40 or 50 candidates 0.7101–0.7132
 * (even 0.6902–0.6958). With every df read, 50 candidates: 2 or 3 neighbours at 0.2–0.3 0.7119–0.7124
 * (even 0.6940–0.6959), 5 neighbours 0.7082–0.7084; 1 neighbour or weight 0.5 fall below BM25 (one
 * neighbour's score dominates), 100 candidates 0.7087–0.7106. Cosines with idf from the candidates
 * alone, or with no idf, gain less (at most 0.7084); vectors cut to each document's best 10–50 terms
 * 0.7031–0.7120. The query reads the best 30 rows instead of 10, analyses them and reads the df of
 * their shared terms (one statement more); a weight of 0 turns it off (LocalIndexOptions).
 *
 * What else was tried, other reorderings and learned rerankers among them, with figures:
 * EXPERIMENTS.md in this folder; rerank.ts's model is what was taken.
 *
 * Only pages within the candidates are reordered (pages 0–2); later pages are BM25's ranks past the
 * candidates, so no document appears on two pages. A row's `score` stays its BM25 score.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/db.ts";
import type { Clock } from "../../lib/clock.ts";
import { PAGE_SIZE, type SearchQuery, type SearchViewer } from "../types.ts";
import { type AnalysedText, analysedText, termFrequencies } from "./analysed-text.ts";
import { DEFAULT_RANKING } from "./prepare.ts";
import { type Bm25Params, bm25Page, type DocumentRow } from "./ranking.ts";

export interface RegularisationParams {
  /** The documents reordered: the best this many by BM25 (0: none, BM25's order as it is). */
  candidates: number;
  /** The candidates most like a document whose scores it borrows. */
  neighbours: number;
  /** The share of the neighbours' score in the new one (0: BM25's order). */
  weight: number;
}

export const DEFAULT_REGULARISATION: RegularisationParams = { candidates: 30, neighbours: 2, weight: 0.2 };

/** A candidate: its id, its ranking value (BM25 times the boosts) and its term weights. */
export interface Candidate {
  id: string;
  ranked: number;
  vector: Map<string, number>;
}

/**
 * The candidates' pairwise cosines, n × n by rows (1 on the diagonal, 0 for a candidate with no
 * vector): dot products through the candidates' own inverted lists, Σ over terms of (candidates
 * holding it)².
 */
export function candidateCosines(cands: Candidate[]): Float64Array {
  const n = cands.length;
  const lists = new Map<string, { i: number; w: number }[]>();
  const norms = new Float64Array(n);
  cands.forEach((c, i) => {
    for (const [term, w] of c.vector) {
      norms[i] = (norms[i] as number) + w * w;
      const list = lists.get(term);
      if (list) list.push({ i, w });
      else lists.set(term, [{ i, w }]);
    }
  });
  const dot = new Float64Array(n * n);
  for (const list of lists.values()) {
    for (let a = 0; a < list.length; a++) {
      const x = list[a] as { i: number; w: number };
      for (let b = a + 1; b < list.length; b++) {
        const y = list[b] as { i: number; w: number };
        const v = x.w * y.w;
        dot[x.i * n + y.i] = (dot[x.i * n + y.i] as number) + v;
        dot[y.i * n + x.i] = (dot[y.i * n + x.i] as number) + v;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const norm = Math.sqrt((norms[i] as number) * (norms[j] as number));
      dot[i * n + j] = norm > 0 ? (i === j ? 1 : (dot[i * n + j] as number) / norm) : 0;
    }
  }
  return dot;
}

/**
 * Each candidate's regularised value (see the top of this file) and the neighbours' share it borrows
 * (the weighted mean of their scores over the best), in the order given. Candidates with no
 * positive score or no vector keep their own score share only; with fewer than two candidates, no
 * positive score, no weight or no neighbours the value is the score share alone. `cosines`:
 * candidateCosines's, when the caller has them.
 */
export function regularisedValues(
  cands: Candidate[],
  p: RegularisationParams,
  cosines?: Float64Array,
): { value: number; borrowed: number }[] {
  const n = cands.length;
  const top = Math.max(0, ...cands.map((c) => c.ranked));
  const share = (c: Candidate) => (top > 0 && Number.isFinite(c.ranked) ? c.ranked / top : 0);
  if (n < 2 || top <= 0 || p.weight <= 0 || p.neighbours <= 0) return cands.map((c) => ({ value: share(c), borrowed: 0 }));
  const cos = cosines ?? candidateCosines(cands);
  return cands.map((c, i) => {
    const sims: { sim: number; j: number }[] = [];
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      sims.push({ sim: Math.max(0, cos[i * n + j] as number), j });
    }
    const nearest = sims.sort((a, b) => b.sim - a.sim || a.j - b.j).slice(0, p.neighbours);
    const total = nearest.reduce((s, x) => s + x.sim, 0);
    const borrowed = total > 0 ? nearest.reduce((s, x) => s + x.sim * share(cands[x.j] as Candidate), 0) / total : 0;
    return { value: (1 - p.weight) * share(c) + p.weight * borrowed, borrowed };
  });
}

/**
 * The candidates' ids in regularised order (ties by the order given, which is BM25's). Candidates
 * with no positive score or no vector keep their own score share only.
 */
export function regularisedOrder(cands: Candidate[], p: RegularisationParams): string[] {
  const top = Math.max(0, ...cands.map((c) => c.ranked));
  if (cands.length < 2 || top <= 0 || p.weight <= 0 || p.neighbours <= 0) return cands.map((c) => c.id);
  const values = regularisedValues(cands, p).map((v, i) => ({ i, value: v.value }));
  values.sort((a, b) => b.value - a.value || a.i - b.i);
  return values.map((v) => (cands[v.i] as Candidate).id);
}

/** The df of terms a process has read, per database, while its index stays at one version. */
interface DfCache {
  /** ranking.ts's index_version: search_stats' generation, document count and total length. */
  version: string;
  n: number;
  df: Map<string, number>;
}

const dfCaches = new WeakMap<Db, DfCache>();

/** The most terms a DfCache holds; past it, it starts again. */
const DF_CACHE_LIMIT = 200_000;

/**
 * The document count and the df of `terms` (0 for a term the index lacks), of those terms alone.
 * While the index stays at the `version` the ranking statement read (every write that changes a df
 * moves search_stats' generation on: writer.ts), the df read for earlier queries are kept, and only
 * terms not read yet cost a statement: most of a query's 400-1,000 terms are the candidates' common
 * vocabulary, so on a steady index most queries read only a few new terms (SciFact on PGlite: the
 * statement 4.7 -> 1.4 ms a query on average). Term statistics kept per index version, as Lucene
 * keeps them per reader: a write starts them again, so every instance still ranks on the df its
 * index holds. Without a version (null), every term is read.
 */
async function documentFrequencies(
  db: Db,
  terms: string[],
  version: string | null,
): Promise<{ n: number; dfOf: Map<string, number> }> {
  let cache = version === null ? undefined : dfCaches.get(db);
  if (cache && cache.version !== version) cache = undefined;
  const known = cache;
  const missing = known ? terms.filter((t) => !known.df.has(t)) : terms;
  // Exactly the terms asked for: a term outside them counts as rare to the caller, whatever else is kept.
  const asked = (all: Map<string, number>) => new Map(terms.map((t) => [t, all.get(t) ?? 0]));
  if (known && missing.length === 0) return { n: known.n, dfOf: asked(known.df) };
  const result = await db.execute(sql`
    select (select greatest(doc_count, 1) from search_stats where id = 1)::float8 as n,
      (select string_agg(coalesce(t.df, 0)::text, ' ' order by u.ord)
       from unnest(${sql.param(missing)}::text[]) with ordinality as u(term, ord)
       left join lateral (select df from search_terms t where t.term = u.term offset 0) t on true) as dfs`);
  const row = (result as unknown as { rows: { n: number | string | null; dfs: string | null }[] }).rows[0];
  const dfs = (row?.dfs ?? "").split(" ");
  const n = known?.n ?? Number(row?.n ?? 1);
  const dfOf = known?.df ?? new Map<string, number>();
  if (dfOf.size + missing.length > DF_CACHE_LIMIT) dfOf.clear();
  missing.forEach((term, k) => {
    dfOf.set(term, Number(dfs[k]) || 0);
  });
  if (version !== null && !known) dfCaches.set(db, { version, n, df: dfOf });
  return { n, dfOf: asked(dfOf) };
}

/**
 * The candidates' term weights, (1 + ln tf) · idf, from their title and text analysed here, or kept
 * from an earlier query's analysis of the same text (analysed-text.ts; the rows are read for the
 * page anyway; reading their postings back costs twice as much). Only a term
 * two or more candidates hold adds to a dot product: only those terms' df is read (about 40% of
 * the candidates' distinct terms on SciFact), in one statement answering one string; a term one
 * candidate holds alone counts as in one document (the highest idf), in that candidate's norm.
 * SciFact, 50 candidates, 2 neighbours, weight 0.3: 0.7129 (0.6955 / 0.7313) against 0.7122 with
 * every df read.
 */
export async function candidateVectors(
  db: Db,
  rows: DocumentRow[],
  titleWeight: number,
  extraTerms: string[] = [],
): Promise<{
  vectors: Map<string, Map<string, number>>;
  idf: (term: string) => number;
  texts: Map<string, AnalysedText>;
}> {
  const texts = new Map(rows.map((r) => [String(r.id), analysedText(String(r.id), r.title ?? "", r.body ?? "", r.language)]));
  const tfs = rows.map((r) => termFrequencies(texts.get(String(r.id)) as AnalysedText, titleWeight));
  const held = new Map<string, number>();
  for (const tf of tfs) for (const term of tf.keys()) held.set(term, (held.get(term) ?? 0) + 1);
  const shared = [...held].filter(([, n]) => n > 1).map(([term]) => term);
  // The reranker's query terms (rerank.ts) have their df read too: 0 where the index lacks them.
  const read = [...new Set([...shared, ...extraTerms])];
  const { n, dfOf } = await documentFrequencies(db, read, rows[0]?.index_version ?? null);
  const idfOfDf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const rare = idfOfDf(1);
  // Vectors as before: a term two or more candidates hold weighs its df, any other counts as rare.
  const vectorIdf = (term: string) => ((held.get(term) ?? 0) > 1 ? idfOfDf(Math.max(1, dfOf.get(term) ?? 1)) : rare);
  const vectors = new Map(
    rows.map((r, i) => [
      String(r.id),
      new Map([...(tfs[i] as Map<string, number>)].map(([term, tf]) => [term, (1 + Math.log(tf)) * vectorIdf(term)])),
    ]),
  );
  // Any term: its df where read (0 when the index lacks it), else rare.
  const idf = (term: string) => {
    const df = dfOf.get(term);
    return df === undefined ? rare : df > 0 ? idfOfDf(df) : 0;
  };
  return { vectors, idf, texts };
}

/**
 * One page of results: bm25Page's, with the first `candidates` reordered by regularisation (see the
 * top of this file).
 */
export async function regularisedPage(
  db: Db,
  q: SearchQuery,
  viewer: SearchViewer,
  clock: Clock,
  params: Bm25Params,
  reg: RegularisationParams = DEFAULT_REGULARISATION,
  titleWeight = DEFAULT_RANKING.titleWeight,
): Promise<DocumentRow[]> {
  const end = (q.page + 1) * PAGE_SIZE;
  if (reg.weight <= 0 || reg.neighbours <= 0 || end > reg.candidates) return bm25Page(db, q, viewer, clock, params);
  const rows = await bm25Page(db, { ...q, page: 0 }, viewer, clock, params, reg.candidates);
  if (rows.length <= q.page * PAGE_SIZE) return [];
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const { vectors: vecs } = await candidateVectors(db, rows, titleWeight);
  const order = regularisedOrder(
    rows.map((r) => ({ id: String(r.id), ranked: Number(r.ranked), vector: vecs.get(String(r.id)) ?? new Map() })),
    reg,
  );
  return order.slice(q.page * PAGE_SIZE, end).map((id) => byId.get(id) as DocumentRow);
}

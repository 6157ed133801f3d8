/**
 * A learned reordering of the first page's candidates (the best 30 by BM25, as regularise.ts reads
 * them): a linear combination of eleven generic query–document features, each computed here from
 * the candidate rows the query already reads, their regularisation vectors and the df of the
 * query's terms (read in regularise.ts's one df statement):
 *   reg         the regularised value (regularise.ts), which alone gives the regularised order;
 *   borrowed    its neighbours' share (the mean of its 2 nearest candidates' scores over the best);
 *   rrank       1 / log2(2 + its place in the regularised order);
 *   idfShare    the share of the query's idf mass the document holds; countShare: of its terms;
 *   sentShare   the best sentence's share of the query's idf mass;
 *   gram5       the share of the query's character 5-grams (of its unstemmed words; a word of up to
 *               5 letters whole) the document holds, each weighed by its rarity among the candidates;
 *   prefix      the share of the query's idf mass whose words' first 5 letters begin a document word;
 *   titleCos    the cosine of the query's idf vector and the title's (1 + ln tf) · idf one;
 *   titleCover  the share of the title's idf mass the query holds;
 *   qcos        the cosine of the query's idf vector and the candidate's regularisation vector.
 * A candidate's value is Σ w_f · x_f, the weights other than reg's scaled by `weight` (0: the
 * regularised order).
 *
 * Learned in memory on the SciFact train queries as a pairwise linear model (logistic loss over
 * pairs of a relevant and a non-relevant candidate in the first 30, each pair weighed by the change
 * in nDCG@10's discount swapping them would make, as LambdaRank; L2 0.01 toward the regularised
 * order alone; 1,000 gradient steps on features scaled by their spread). Cross-validated on the
 * query ids' parity, learnt on one half and measured on the other: odd 0.7342 -> 0.7443 (+0.0101),
 * even 0.6963 -> 0.7002 (+0.0039), the halves' mean 0.7153 -> 0.7222; over 10 random halvings the
 * held-out gain averaged +0.0069 (+0.0018 to +0.0153). The two halves' weights share their signs
 * and are within a factor 2 of each other. The weights here are learnt on all 809 queries (0.7222;
 * even 0.7017, odd 0.7439 on the queries they were learnt on), reg's set to 1. The feature set was
 * chosen among 20 after seeing the parity halves (the random halvings are the fairer figure); the
 * others, and coordinate ascent, did not hold out: see regularise.ts. It reads the candidates' text
 * as regularise.ts analysed it (analyseText); with that analysis, about 6 ms of CPU a query on a
 * loaded 2-core machine (SciFact's abstracts), where the two analysing it apart took 7–10 ms.
 */
import type { Db } from "../../db/db.ts";
import type { Clock } from "../../lib/clock.ts";
import { analyze, tokenize } from "../analyze.ts";
import { PAGE_SIZE, type SearchQuery, type SearchViewer } from "../types.ts";
import { DEFAULT_RANKING } from "./prepare.ts";
import { type Bm25Params, bm25Page, type DocumentRow } from "./ranking.ts";
import {
  type AnalysedText,
  analyseText,
  type Candidate,
  candidateVectors,
  DEFAULT_REGULARISATION,
  type RegularisationParams,
  regularisedPage,
  regularisedValues,
} from "./regularise.ts";

export interface RerankParams {
  /** The scale of the learned weights beyond the regularised value (0: the regularised order; 1: the model). */
  weight: number;
}

export const DEFAULT_RERANK: RerankParams = { weight: 1 };

/** A candidate to reorder: regularise.ts's Candidate with its title, text (as analysed) and language. */
export interface RerankCandidate extends Candidate {
  title: string;
  body: string;
  language: string;
  /** The title and text as analyseText gives them (regularise.ts analysed them already), else analysed here. */
  text?: AnalysedText;
}

export const FEATURES = [
  "reg", "borrowed", "rrank", "idfShare", "countShare", "sentShare", "gram5", "prefix", "titleCos", "titleCover", "qcos",
] as const; // biome-ignore format: a list

/** The weights, in FEATURES' order (learnt on all 809 SciFact train queries). */
export const WEIGHTS: readonly number[] = [1, 0.4564, 0.2988, -0.479, -0.4453, 0.4168, 0.4754, 0.4817, -0.2927, 0.6416, 1.1142];

const GRAM = 5;

/** A word's character 5-grams (a word of up to 5 characters whole). */
function gramsOf(word: string, into: Set<string>): void {
  if (word.length <= GRAM) into.add(word);
  else for (let k = 0; k + GRAM <= word.length; k++) into.add(word.slice(k, k + GRAM));
}

interface QueryView {
  /** The query's distinct terms with their idf (0 for a term the index lacks). */
  terms: Map<string, number>;
  mass: number;
  norm: number;
  /** Each query word (stop-words dropped): its first 5 letters and its term's idf. */
  prefixes: { prefix: string; idf: number }[];
  grams: Set<string>;
}

function queryView(text: string, language: string, idf: (term: string) => number): QueryView {
  const terms = new Map<string, number>();
  for (const term of analyze(text, language)) terms.set(term, idf(term));
  let mass = 0;
  let sq = 0;
  for (const w of terms.values()) {
    mass += w;
    sq += w * w;
  }
  const prefixes: { prefix: string; idf: number }[] = [];
  const grams = new Set<string>();
  for (const word of tokenize(text)) {
    const term = analyze(word, language)[0];
    if (term === undefined) continue;
    prefixes.push({ prefix: word.slice(0, GRAM), idf: terms.get(term) ?? 0 });
    gramsOf(word, grams);
  }
  return { terms, mass, norm: Math.sqrt(sq), prefixes, grams };
}

const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a / b) ? a / b : 0);

/** The query's cosine with a weighted term vector. */
function cosine(q: QueryView, vector: Map<string, number>): number {
  let dot = 0;
  let sq = 0;
  for (const [term, x] of vector) {
    sq += x * x;
    const w = q.terms.get(term);
    if (w) dot += w * x;
  }
  return ratio(dot, q.norm * Math.sqrt(sq));
}

/** The query's idf mass among `terms`, over its whole mass. */
function massShare(q: QueryView, has: (term: string) => boolean): number {
  let m = 0;
  for (const [term, w] of q.terms) if (has(term)) m += w;
  return ratio(m, q.mass);
}

/**
 * The features of each candidate (FEATURES' order, candidates in the order given). `idf` gives a
 * term's idf: the query's terms as the index counts them (0 when it lacks them).
 */
export function rerankFeatures(
  query: string,
  cands: RerankCandidate[],
  idf: (term: string) => number,
  reg: RegularisationParams,
): number[][] {
  const n = cands.length;
  if (n === 0) return [];
  const views = new Map<string, QueryView>();
  const viewOf = (language: string) => {
    let v = views.get(language);
    if (!v) {
      v = queryView(query, language, idf);
      views.set(language, v);
    }
    return v;
  };
  const values = regularisedValues(cands, reg);
  const order = values.map((v, i) => ({ i, v: v.value })).sort((a, b) => b.v - a.v || a.i - b.i);
  const rrank = new Float64Array(n);
  order.forEach(({ i }, k) => {
    rrank[i] = 1 / Math.log2(k + 2);
  });
  // Each candidate's distinct words; of them, the query 5-grams and word starts each holds (only
  // those: a set of every gram of every candidate would cost more than the rest together).
  const queryGrams = new Set<string>();
  const queryStarts = new Set<string>();
  for (const c of cands) viewOf(c.language);
  for (const v of views.values()) {
    for (const g of v.grams) queryGrams.add(g);
    for (const p of v.prefixes) queryStarts.add(p.prefix);
  }
  const heldGrams: Set<string>[] = [];
  const heldStarts: Set<string>[] = [];
  const holders = new Map<string, number>();
  // Each candidate's text as regularise.ts analysed it: its title's terms, its sentences' terms and its words.
  const titles: Map<string, number>[] = [];
  const sentences: Set<string>[][] = [];
  for (const c of cands) {
    const text = c.text ?? analyseText(c.title, c.body, c.language);
    const titleTf = new Map<string, number>();
    for (const term of text.title.terms) if (term) titleTf.set(term, (titleTf.get(term) ?? 0) + 1);
    titles.push(titleTf);
    const words = new Set(text.title.words);
    for (const sentence of text.sentences) for (const w of sentence.words) words.add(w);
    sentences.push(text.sentences.map((sentence) => new Set(sentence.terms)));
    const grams = new Set<string>();
    const starts = new Set<string>();
    for (const word of words) {
      const start = word.slice(0, GRAM);
      if (queryStarts.has(start)) starts.add(start);
      if (word.length <= GRAM) {
        if (queryGrams.has(word)) grams.add(word);
      } else {
        for (let k = 0; k + GRAM <= word.length; k++) {
          const g = word.slice(k, k + GRAM);
          if (queryGrams.has(g)) grams.add(g);
        }
      }
    }
    for (const g of grams) holders.set(g, (holders.get(g) ?? 0) + 1);
    heldGrams.push(grams);
    heldStarts.push(starts);
  }
  return cands.map((c, i) => {
    const q = viewOf(c.language);
    let matched = 0;
    for (const term of q.terms.keys()) if (c.vector.has(term)) matched++;
    let best = 0;
    for (const terms of sentences[i] as Set<string>[])
      best = Math.max(
        best,
        massShare(q, (t) => terms.has(t)),
      );
    let gramHeld = 0;
    let gramAll = 0;
    for (const g of q.grams) {
      const w = Math.log((n + 1) / ((holders.get(g) ?? 0) + 0.5));
      gramAll += w;
      if ((heldGrams[i] as Set<string>).has(g)) gramHeld += w;
    }
    let prefixHeld = 0;
    let prefixAll = 0;
    for (const p of q.prefixes) {
      prefixAll += p.idf;
      if ((heldStarts[i] as Set<string>).has(p.prefix)) prefixHeld += p.idf;
    }
    const titleTf = titles[i] as Map<string, number>;
    const titleVector = new Map([...titleTf].map(([term, tf]) => [term, (1 + Math.log(tf)) * idf(term)]));
    let covered = 0;
    let titleMass = 0;
    for (const term of titleTf.keys()) {
      const w = idf(term);
      titleMass += w;
      if (q.terms.has(term)) covered += w;
    }
    const v = values[i] as { value: number; borrowed: number };
    const x = [
      v.value,
      v.borrowed,
      rrank[i] as number,
      massShare(q, (t) => c.vector.has(t)),
      ratio(matched, q.terms.size),
      best,
      ratio(gramHeld, gramAll),
      ratio(prefixHeld, prefixAll),
      cosine(q, titleVector),
      ratio(covered, titleMass),
      cosine(q, c.vector),
    ];
    return x.map((f) => (Number.isFinite(f) ? f : 0));
  });
}

/**
 * The candidates' ids in reranked order (ties by the order given, BM25's). With a weight of 0 or
 * below, or fewer than two candidates, the regularised order.
 */
export function rerankedOrder(
  query: string,
  cands: RerankCandidate[],
  idf: (term: string) => number,
  reg: RegularisationParams,
  p: RerankParams = DEFAULT_RERANK,
  weights: readonly number[] = WEIGHTS,
): string[] {
  const features = rerankFeatures(query, cands, idf, reg);
  const scale = p.weight > 0 && Number.isFinite(p.weight) ? p.weight : 0;
  const scored = features.map((x, i) => ({
    i,
    s: x.reduce((s, f, k) => s + (k === 0 ? 1 : scale) * (weights[k] ?? 0) * f, 0),
  }));
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.map(({ i }) => (cands[i] as RerankCandidate).id);
}

/**
 * One page of results: regularisedPage's, with the first `reg.candidates` in reranked order instead
 * (the same rows and df statement; the query's terms' df is read with the candidates' shared terms).
 * A weight of 0, or no regularisation (its weight or neighbours 0: the features assume it), gives
 * regularisedPage's page.
 */
export async function rerankedPage(
  db: Db,
  q: SearchQuery,
  viewer: SearchViewer,
  clock: Clock,
  params: Bm25Params,
  reg: RegularisationParams = DEFAULT_REGULARISATION,
  titleWeight = DEFAULT_RANKING.titleWeight,
  p: RerankParams = DEFAULT_RERANK,
): Promise<DocumentRow[]> {
  const end = (q.page + 1) * PAGE_SIZE;
  if (!(p.weight > 0) || reg.weight <= 0 || reg.neighbours <= 0 || end > reg.candidates)
    return regularisedPage(db, q, viewer, clock, params, reg, titleWeight);
  const rows = await bm25Page(db, { ...q, page: 0 }, viewer, clock, params, reg.candidates);
  if (rows.length <= q.page * PAGE_SIZE) return [];
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const terms = new Set<string>();
  for (const language of new Set(rows.map((r) => r.language))) for (const t of analyze(q.text, language)) terms.add(t);
  const { vectors, idf, texts } = await candidateVectors(db, rows, titleWeight, [...terms]);
  const cands = rows.map((r) => ({
    id: String(r.id),
    ranked: Number(r.ranked),
    vector: vectors.get(String(r.id)) ?? new Map<string, number>(),
    title: r.title ?? "",
    body: r.body ?? "",
    language: r.language,
    text: texts.get(String(r.id)),
  }));
  const order = rerankedOrder(q.text, cands, idf, reg, p);
  return order.slice(q.page * PAGE_SIZE, end).map((id) => byId.get(id) as DocumentRow);
}

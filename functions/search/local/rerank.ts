/**
 * A learned reordering of the first page's candidates (the best 30 by BM25, as regularise.ts reads
 * them): a linear combination of fourteen generic query–document features, each computed here from
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
 *   qcos        the cosine of the query's idf vector and the candidate's regularisation vector;
 *   related     for each query term the document lacks, its idf times the cosine of the document's
 *               vector with the sum of the unit vectors of the candidates holding the term, over the
 *               query's idf mass, at most 0.1 (RELATED_CAP): credit for a missing word from reading
 *               like the candidates that use it (a translation model from the candidates, as local
 *               context analysis, Xu & Croft 1996, finds related terms in them); made from the
 *               candidates' cosine matrix, which regularise.ts's regularisedValues shares
 *               (candidateCosines);
 *   pairs       the share of the query's adjacent term pairs (stop-words dropped) that stand next to
 *               each other, in either order, in the title or in one sentence;
 *   firstShare  the first sentence's share of the query's idf mass (the first holding a word other
 *               than stop-words: what an abstract, or a news story's lead, is about).
 * A candidate's value is Σ w_f · x_f, the weights other than reg's scaled by `weight` (0: the
 * regularised order).
 *
 * Learned in memory on the SciFact train queries as a pairwise linear model (logistic loss over
 * pairs of a relevant and a non-relevant candidate in the first 30, each pair weighed by the change
 * in nDCG@10's discount, at their places in the regularised order, swapping them would make, as
 * LambdaRank; L2 0.01 toward the regularised order alone; 1,000 gradient steps of 0.2 on features
 * centred and scaled by their spread). The weights here are learnt on all 809 queries on the
 * candidates of the term-weighted BM25 (ranking.ts TERM_WEIGHTING), reg's set to 1: 0.7373 (even
 * 0.7113, odd 0.7648 on the queries they were learnt on). On plain BM25's candidates the same
 * procedure gave 0.7330 (even 0.7128, odd 0.7542); cross-validated there, learnt on one half and
 * measured on the other: on the query ids' parity odd 0.7342 -> 0.7538 (+0.0196), even 0.6963 ->
 * 0.7113 (+0.0150) over the regularised order; over 10 random halvings the held-out figure averaged
 * 0.7298 against 0.7148. The two halves' weights share their signs (the odd half's are two to six
 * times the even's beside reg's). The term weighting under these fourteen, held out against them
 * relearnt on plain BM25's candidates on the same half, with its θ and the weights both learnt on
 * the half: parity odd 0.7539 -> 0.7624 (+0.0086), even 0.7113 -> 0.7117 (+0.0004); 10 random
 * halvings +0.0027 (-0.0012 to +0.0057; 8 of 10 positive, the others -0.0000 and -0.0012). With
 * θ fixed at ranking.ts's (chosen on all 809 queries, so the optimistic figure) +0.0083 / +0.0004
 * and +0.0033 (+0.0004 to +0.0051, 10 of 10). A small gain, mostly on the odd half: the even half
 * in sample is 0.0015 below plain BM25's 0.7128.
 *
 * The eleven features before the last three were chosen among 20 after seeing the parity halves
 * (the others, and coordinate ascent, did not hold out: see regularise.ts): 0.7222 with their own
 * weights (even 0.7017, odd 0.7439); learnt again by the same procedure, 0.7230 in sample, held out
 * odd 0.7424, even 0.7000, random halvings 0.7211. The three added: held-out gain over those eleven
 * odd +0.0114, even +0.0113, random halvings +0.0087 (+0.0058 to +0.0132, 10 of 10 positive);
 * by the query's distinct terms, held out on parity: 4 or fewer (21 queries) 0.6634 either way, 5–6
 * (134) +0.0129, 7–9 (303) +0.0065, 10 or more (351) +0.0157. Related and pairs alone, added first:
 * +0.0085 / +0.0109 / +0.0069 (+0.0049 to +0.0093; 0.7303 in sample, even 0.7102, odd 0.7515);
 * firstShare then added +0.0029 / +0.0004 / +0.0018 (+0.0006 to +0.0039, 10 of 10), chosen after
 * seeing those halvings among four (cent5 +0.0012 / -0.0010 / +0.0006, the best sentence's saturated
 * score +0.0003 / -0.0015 / -0.0004, the query's digit tokens held +0.0005 / -0.0007 / -0.0005).
 * Related and pairs with related uncapped +0.0083 / +0.0082 / +0.0053 (+0.0033 to +0.0084), capped
 * at 0.15 +0.0085 / +0.0094 / +0.0055 (the cap chosen on the even ids among none, 0.07, 0.1 and
 * 0.15; 0.1 is about SciFact's 92nd percentile of related, whose largest is 0.22); related uncapped
 * alone +0.0036 / +0.0067 / +0.0040 (+0.0016 to +0.0059), pairs alone +0.0030 / +0.0021 / +0.0019
 * (-0.0001 to +0.0044), pairs with the square root of related +0.0054 / +0.0070 / +0.0036 over pairs
 * alone. Uncapped, related took a near twin lacking one of 3 query words above the one holding them
 * all (the near-miss test; a cosine of about 0.9).
 *
 * Tried on top of the eleven, each added alone (held-out gain, odd / even / random halvings' mean,
 * how many of 10 positive), none taken: where in the abstract the best sentence is (relative place
 * +0.0009 / +0.0011 / -0.0003, 5; among the last 2 +0.0004 / +0.0009 / +0.0000, 6), the last 2
 * sentences' best share -0.0005 / +0.0010 / +0.0001 (5), over the best sentence's -0.0003 / +0.0001
 * / -0.0005 (4), the first sentence's share -0.0014 / +0.0034 / +0.0004 (6); the best sentence's
 * saturated (BM25-like) idf score +0.0020 / +0.0003 / +0.0002 (6), its ordered query pairs +0.0002 /
 * +0.0003 / -0.0003 (5); ordered pairs in the document +0.0025 / +0.0004 / +0.0006 (7); the likeness
 * to the first 3 or 5 in regularised order (a feature, not fused) +0.0009 / +0.0003 / -0.0001 (4),
 * +0.0030 / +0.0025 / -0.0007 (4); the query's tokens with digits held whole +0.0036 / +0.0003 /
 * -0.0006 (2), or missed -0.0007 (3); the score gap to the best +0.0008 / +0.0013 / -0.0002 (4);
 * 1 / log2(2 + BM25 place) ±0 / ±0 / -0.0004 (4); reg × qcos +0.0012 / +0.0009 / +0.0004 (8), reg ×
 * sentShare -0.0002 (3), reg² -0.0001 (3); the log length -0.0006 (6). Forms of related: the
 * holders' vectors without the query's terms -0.0008 / +0.0070 / +0.0037 (10), weighed by their reg
 * -0.0009 / +0.0077 / +0.0024 (10), only the best 5 holders +0.0023 / +0.0032 / +0.0025 (10), the
 * nearest holder alone +0.0008 / +0.0021 / -0.0003 (5), held mass plus the credit +0.0011 / +0.0020
 * / +0.0012 (9); every query term's other holders (held terms too), with ordered pairs, +0.0023 /
 * +0.0027 / +0.0005 (7); with pairs, every term's holders with the document itself +0.0080 /
 * +0.0035 / +0.0025 (9), the credit over the missing mass +0.0076 / +0.0080 / +0.0047. Forms of
 * pairs, with related: ordered +0.0059 / +0.0044 / +0.0047, ordered and idf-weighed +0.0037 /
 * +0.0055 / +0.0046. The thirteen (related uncapped) with a fourteenth, over the eleven: the best
 * sentence's saturated score +0.0086 / +0.0087 / +0.0052, ordered pairs +0.0094 / +0.0082 / +0.0062
 * (their weight negative against the unordered); ordered pairs and pairs in the title, with related
 * +0.0060 / +0.0088 / +0.0048. L2 0.1 or 0.001 instead of 0.01: +0.0049 or +0.0054 over the eleven
 * at the same L2 (uncapped). Dynamic LambdaRank weights (the pairs' discounts from the model's
 * order, again every 50 steps): uncapped, +0.0056 / +0.0050 / +0.0046 over the eleven learnt so.
 * Over the thirteen (related uncapped), a fourteenth: the first sentence's share +0.0018 / +0.0016 /
 * +0.0019 (+0.0001 to +0.0041; 0.7311 in sample), the best sentence's saturated score +0.0000 /
 * +0.0010 / -0.0003, likeness to the first 5 -0.0004 / +0.0025 / +0.0015, reg × qcos +0.0002 / +0.0005 / -0.0001, ordered pairs +0.0009 /
 * +0.0000 / +0.0004. These were compared on the same halvings, so the random halvings too were seen
 * in choosing among some 40 forms.
 *
 * It reads the candidates' text as regularise.ts analysed it (analyseText); with that analysis,
 * about 3 ms of CPU a query in memory on SciFact's candidates (0.2–0.5 ms more than the eleven), and
 * about 6 ms in the service on a loaded 2-core machine, where the two analysing it apart took 7–10 ms.
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
  candidateCosines,
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
  "related", "pairs", "firstShare",
] as const; // biome-ignore format: a list

/** The weights, in FEATURES' order (learnt on all 809 SciFact train queries, on the term-weighted BM25's candidates). */
export const WEIGHTS: readonly number[] = [
  1, 0.747, 0.8201, 1.4708, -1.116, 0.6909, 1.1908, 0.5624, -0.7438, 1.2181, 0.9266, 13.9007, 0.9214, 0.429,
];

const GRAM = 5;

/** The most `related` counts (about SciFact's 92nd percentile; chosen on the even query ids: see the top). */
const RELATED_CAP = 0.1;

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
  /** The query's adjacent pairs of terms (stop-words dropped; two different terms), as pairKey gives them. */
  pairs: Set<string>;
}

/** Two terms as one key, in either order. */
const pairKey = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);

function queryView(text: string, language: string, idf: (term: string) => number): QueryView {
  const terms = new Map<string, number>();
  const sequence = analyze(text, language);
  const pairs = new Set<string>();
  for (const [k, term] of sequence.entries()) {
    terms.set(term, idf(term));
    const next = sequence[k + 1];
    if (next !== undefined && next !== term) pairs.add(pairKey(term, next));
  }
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
  return { terms, mass, norm: Math.sqrt(sq), prefixes, grams, pairs };
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
  const cosines = candidateCosines(cands);
  const values = regularisedValues(cands, reg, cosines);
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
  const queryTerms = new Set<string>();
  const queryPairs = new Set<string>();
  for (const v of views.values()) {
    for (const g of v.grams) queryGrams.add(g);
    for (const p of v.prefixes) queryStarts.add(p.prefix);
    for (const t of v.terms.keys()) queryTerms.add(t);
    for (const p of v.pairs) queryPairs.add(p);
  }
  const heldPairs: Set<string>[] = [];
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
    // The query's pairs adjacent in the title or in one sentence (stop-words dropped), in either order.
    const pairs = new Set<string>();
    if (queryPairs.size > 0)
      for (const r of [text.title, ...text.sentences]) {
        let last = "";
        for (const term of r.terms) {
          if (!term) continue;
          if (last && term !== last && queryTerms.has(term) && queryTerms.has(last)) {
            const key = pairKey(last, term);
            if (queryPairs.has(key)) pairs.add(key);
          }
          last = term;
        }
      }
    heldPairs.push(pairs);
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
  // Each query term's candidates (those holding it): the squared norm of the sum of their unit
  // vectors, Σ_j Σ_k cos(j, k), made once; a candidate's cosine with that sum is Σ_j cos(i, j) over it.
  const holding = new Map<string, { held: number[]; norm: number } | null>();
  const holdersOf = (term: string) => {
    let h = holding.get(term);
    if (h !== undefined) return h;
    const held: number[] = [];
    cands.forEach((d, j) => {
      if (d.vector.has(term)) held.push(j);
    });
    let sq = 0;
    for (const j of held) for (const k of held) sq += cosines[j * n + k] as number;
    h = sq > 0 ? { held, norm: Math.sqrt(sq) } : null;
    holding.set(term, h);
    return h;
  };
  return cands.map((c, i) => {
    const q = viewOf(c.language);
    // related: for each query term the candidate lacks, its likeness to the candidates holding it.
    let related = 0;
    for (const [term, w] of q.terms) {
      if (!(w > 0) || c.vector.has(term)) continue;
      const h = holdersOf(term);
      if (!h) continue;
      let sum = 0;
      for (const j of h.held) sum += cosines[i * n + j] as number;
      related += (w * sum) / h.norm;
    }
    let matched = 0;
    for (const term of q.terms.keys()) if (c.vector.has(term)) matched++;
    let best = 0;
    let first = -1;
    for (const terms of sentences[i] as Set<string>[]) {
      const share = massShare(q, (t) => terms.has(t));
      best = Math.max(best, share);
      // The first sentence holding a term (not only stop-words).
      if (first < 0 && [...terms].some((t) => t !== "")) first = share;
    }
    first = Math.max(first, 0);
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
      Math.min(RELATED_CAP, ratio(related, q.mass)),
      ratio([...(heldPairs[i] as Set<string>)].filter((p) => q.pairs.has(p)).length, q.pairs.size),
      first,
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

/**
 * A learned reordering of the first page's candidates (the best 30 by BM25, as regularise.ts reads
 * them): a linear combination of fourteen generic query–document features (rerank-features.ts computes them) from
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
 * Tried on top of the eleven and not taken (some 40 features and forms, with figures): EXPERIMENTS.md
 * in this folder. These were compared on the same halvings, so the random halvings too were seen in
 * choosing among them.
 *
 * It reads the candidates' text as regularise.ts analysed it (analysed-text.ts); with that analysis,
 * about 3 ms of CPU a query in memory on SciFact's candidates (0.2–0.5 ms more than the eleven), and
 * about 6 ms in the service on a loaded 2-core machine, where the two analysing it apart took 7–10 ms.
 */
import type { Db } from "../../db/db.ts";
import type { Clock } from "../../lib/clock.ts";
import { analyze } from "../analyze.ts";
import { PAGE_SIZE, type SearchQuery, type SearchViewer } from "../types.ts";
import { DEFAULT_RANKING } from "./prepare.ts";
import { type Bm25Params, bm25Page, type DocumentRow } from "./ranking.ts";
import { candidateVectors, DEFAULT_REGULARISATION, type RegularisationParams, regularisedPage } from "./regularise.ts";
import { type RerankCandidate, rerankFeatures } from "./rerank-features.ts";

export { FEATURES, type RerankCandidate, rerankFeatures } from "./rerank-features.ts";

export interface RerankParams {
  /** The scale of the learned weights beyond the regularised value (0: the regularised order; 1: the model). */
  weight: number;
}

export const DEFAULT_RERANK: RerankParams = { weight: 1 };

/** The weights, in FEATURES' order (learnt on all 809 SciFact train queries, on the term-weighted BM25's candidates). */
export const WEIGHTS: readonly number[] = [
  1, 0.747, 0.8201, 1.4708, -1.116, 0.6909, 1.1908, 0.5624, -0.7438, 1.2181, 0.9266, 13.9007, 0.9214, 0.429,
];

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

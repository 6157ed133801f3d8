/**
 * The fourteen features of a candidate that rerank.ts's learned model weighs (their meaning and how
 * the model was learnt: the top of rerank.ts). Each is computed from the candidate rows the query
 * already reads, their regularisation vectors (regularise.ts) and the idf of the query's terms: no
 * statement of its own. Every feature is a finite number, most a share between 0 and 1.
 */
import { analyze, tokenize } from "../analyze.ts";
import { type AnalysedText, analyseText } from "./analysed-text.ts";
import { type Candidate, candidateCosines, type RegularisationParams, regularisedValues } from "./regularise.ts";

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

const GRAM = 5;

/** The most `related` counts (about SciFact's 92nd percentile; chosen on the even query ids: see the top of rerank.ts). */
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
  // those: a set of every gram of every candidate would cost more than the rest together). Cut word
  // by word, so the cost follows the candidate's text, not the query's length: looking each query
  // gram up in the text instead costs the same on SciFact and six times as much for a query of
  // 2,000 characters of long words.
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
    titles.push(text.titleTf);
    sentences.push(text.sentenceTerms);
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
    // Word by word through the word text (" cell il 6 "): the start and the grams are cut from it.
    const w = text.wordText;
    for (let from = 1; from < w.length; ) {
      const end = w.indexOf(" ", from);
      const start = w.slice(from, Math.min(end, from + GRAM));
      if (queryStarts.has(start)) starts.add(start);
      if (end - from <= GRAM) {
        if (queryGrams.has(start)) grams.add(start);
      } else {
        for (let k = from; k + GRAM <= end; k++) {
          const g = w.slice(k, k + GRAM);
          if (queryGrams.has(g)) grams.add(g);
        }
      }
      from = end + 1;
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

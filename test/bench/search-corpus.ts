/**
 * A generated corpus for the search load benchmark. The vocabulary is real: every word form of a
 * real text (the SciFact abstracts, read at run time from ../shared/bench and never copied), ranked
 * by how often it occurs there, so stop-words lead as in any English text and the tail is real
 * scientific words the analyzer stems and splits as it would a page. Words are drawn Zipfian
 * (s = 1) over those ranks; the text's own frequencies only decide the order. Without the data set
 * the vocabulary falls back to synthetic pronounceable words behind the same stop-words.
 *
 * Documents: log-normal lengths (median 150 words, σ 0.7, 20–3,000: most pages short, a long
 * tail), a title of 3–10 words, one of 997 sites, a publication date in 2010–2025, 85% web / 10%
 * news / 5% research papers, and 5% declared German (the index then holds two languages and a query
 * is analysed in both, as on a mixed index). Queries: 2–5 words from the same distribution, no
 * stop-words. Deterministic for a seed.
 */

import { once } from "node:events";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { tokenize } from "../../functions/search/analyze.ts";
import { mulberry32 } from "../helpers/prng.ts";

const STOP = "the of and to a in is that for it as was with be by on not this are or at from but an have which".split(" ");
const ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "st", "tr"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"];
const CODAS = ["", "n", "r", "s", "l", "m", "x", "nd", "rt"];

export interface Corpus {
  vocabulary: string[];
  /** Where the words came from, for the report. */
  source: string;
  /** Samples a vocabulary rank (0 = most frequent). */
  sample(): number;
  random: () => number;
}

/** Word forms of the JSONL corpus at `path` (title and text of each line), most frequent first. */
export function realVocabulary(path: string): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line) continue;
    const d = JSON.parse(line) as { title?: string; text?: string };
    for (const w of tokenize(`${d.title ?? ""} ${d.text ?? ""}`)) {
      // Letters only, 2+ characters: numbers and stray symbols are not vocabulary.
      if (w.length > 1 && /^\p{L}+$/u.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
}

function syntheticVocabulary(seed: number, size: number): string[] {
  const r = mulberry32(seed);
  const seen = new Set<string>(STOP);
  const vocabulary = [...STOP];
  while (vocabulary.length < size) {
    const syllables = 2 + Math.floor(r() * 3);
    let w = "";
    for (let i = 0; i < syllables; i++) {
      w += ONSETS[Math.floor(r() * ONSETS.length)];
      w += VOWELS[Math.floor(r() * VOWELS.length)];
      w += CODAS[Math.floor(r() * CODAS.length)];
    }
    if (!seen.has(w)) {
      seen.add(w);
      vocabulary.push(w);
    }
  }
  return vocabulary;
}

/** `wordsFrom`: a JSONL corpus to take the vocabulary from (absent or missing: synthetic words). */
export function makeCorpus(seed: number, wordsFrom?: string, sampleSeed = seed + 1): Corpus {
  const real = wordsFrom && existsSync(wordsFrom) ? realVocabulary(wordsFrom) : null;
  const vocabulary = real ?? syntheticVocabulary(seed, 60_000);
  const size = vocabulary.length;
  const random = mulberry32(sampleSeed);
  const cdf = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) {
    sum += 1 / (r + 1);
    cdf[r] = sum;
  }
  for (let r = 0; r < size; r++) cdf[r] = (cdf[r] as number) / sum;
  const sample = () => {
    const x = random();
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const source = real ? `${size.toLocaleString("en")} real word forms ranked by frequency` : `${size} synthetic words`;
  return { vocabulary, source, sample, random };
}

function words(c: Corpus, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(c.vocabulary[c.sample()] as string);
  return out.join(" ");
}

/** A log-normal length (Box–Muller), median `median`, clamped to [min, max]. */
function logNormal(r: () => number, median: number, sigma: number, min: number, max: number): number {
  const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  return Math.max(min, Math.min(max, Math.round(median * Math.exp(sigma * z))));
}

export const SITES = 997;

/** Writes `count` documents as import JSONL to `path`. */
export async function writeCorpus(path: string, count: number, wordsFrom?: string, seed = 42): Promise<Corpus> {
  const c = makeCorpus(seed, wordsFrom);
  const out = createWriteStream(path, { encoding: "utf8" });
  for (let i = 0; i < count; i++) {
    const kind = c.random();
    const type = kind < 0.85 ? "web" : kind < 0.95 ? "news" : "research_paper";
    const line = JSON.stringify({
      url: `https://site${i % SITES}.example/doc/${i}`,
      title: words(c, 3 + Math.floor(c.random() * 8)),
      text: words(c, logNormal(c.random, 150, 0.7, 20, 3000)),
      type,
      language: c.random() < 0.05 ? "de" : "en",
      year: type === "research_paper" ? 2010 + Math.floor(c.random() * 16) : undefined,
      published_date: `20${10 + Math.floor(c.random() * 16)}-0${1 + Math.floor(c.random() * 9)}-1${Math.floor(c.random() * 9)}`,
    });
    if (!out.write(`${line}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return c;
}

/** `count` queries of 2–5 words from the corpus distribution (another seed than the documents). */
export function makeQueries(count: number, wordsFrom?: string, seed = 7): string[] {
  const c = makeCorpus(42, wordsFrom, seed);
  const stop = new Set(STOP);
  const r = c.random;
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 2 + Math.floor(r() * 4);
    const q: string[] = [];
    while (q.length < n) {
      const rank = c.sample();
      const w = c.vocabulary[rank] as string;
      // Query words are content words: the 100 most frequent forms (function words) are skipped.
      if (!stop.has(w) && rank >= 100) q.push(w);
    }
    queries.push(q.join(" "));
  }
  return queries;
}

/**
 * A generated corpus for the search load benchmark: a Zipfian vocabulary (s = 1) whose most
 * frequent words are real English stop-words (dropped by the analyzer, as in real text) followed
 * by synthetic pronounceable words, documents of 50–300 terms, and 2–5-term queries drawn from the
 * same distribution. Deterministic for a seed.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mulberry32 } from "../helpers/prng.ts";

const STOP = "the of and to a in is that for it as was with be by on not this are or at from but an have which".split(" ");
const ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cl", "st", "tr"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"];
const CODAS = ["", "n", "r", "s", "l", "m", "x", "nd", "rt"];

export interface Corpus {
  vocabulary: string[];
  /** Samples a vocabulary rank (0 = most frequent). */
  sample(): number;
  random: () => number;
}

export function makeCorpus(seed: number, vocabularySize = 60_000, sampleSeed = seed + 1): Corpus {
  const vocabRandom = mulberry32(seed);
  const seen = new Set<string>(STOP);
  const vocabulary = [...STOP];
  while (vocabulary.length < vocabularySize) {
    const syllables = 2 + Math.floor(vocabRandom() * 3);
    let w = "";
    for (let i = 0; i < syllables; i++) {
      w += ONSETS[Math.floor(vocabRandom() * ONSETS.length)];
      w += VOWELS[Math.floor(vocabRandom() * VOWELS.length)];
      w += CODAS[Math.floor(vocabRandom() * CODAS.length)];
    }
    if (!seen.has(w)) {
      seen.add(w);
      vocabulary.push(w);
    }
  }
  const random = mulberry32(sampleSeed);
  const cdf = new Float64Array(vocabularySize);
  let sum = 0;
  for (let r = 0; r < vocabularySize; r++) {
    sum += 1 / (r + 1);
    cdf[r] = sum;
  }
  for (let r = 0; r < vocabularySize; r++) cdf[r] = (cdf[r] as number) / sum;
  const sample = () => {
    const x = random();
    let lo = 0;
    let hi = vocabularySize - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { vocabulary, sample, random };
}

function words(c: Corpus, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(c.vocabulary[c.sample()] as string);
  return out.join(" ");
}

/** Writes `count` documents as import JSONL to `path`. */
export async function writeCorpus(path: string, count: number, seed = 42): Promise<void> {
  const c = makeCorpus(seed);
  const out = createWriteStream(path, { encoding: "utf8" });
  for (let i = 0; i < count; i++) {
    const length = 50 + Math.floor(c.random() * 251);
    const line = JSON.stringify({
      url: `https://site${i % 997}.example/doc/${i}`,
      title: words(c, 3 + Math.floor(c.random() * 6)),
      text: words(c, length),
      published_date: `20${10 + Math.floor(c.random() * 16)}-0${1 + Math.floor(c.random() * 9)}-1${Math.floor(c.random() * 9)}`,
    });
    if (!out.write(`${line}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** `count` queries of 2–5 terms from the corpus distribution (another seed than the documents). */
export function makeQueries(count: number, seed = 7): string[] {
  const c = makeCorpus(42, undefined, seed);
  const r = c.random;
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 2 + Math.floor(r() * 4);
    const q: string[] = [];
    while (q.length < n) {
      const w = c.vocabulary[c.sample()] as string;
      if (!STOP.includes(w)) q.push(w);
    }
    queries.push(q.join(" "));
  }
  return queries;
}

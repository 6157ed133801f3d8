/**
 * Text analysis for the local index: the same function turns documents into postings and queries
 * into terms, so both sides always agree. Lower-case, Unicode letters and digits (hyphenated words
 * split into their parts, possessive 's dropped), stop-words per language (Lucene's 33 English
 * words for en, stopwords-iso for the others), then stemming (Porter for en, Snowball for the
 * languages it knows, none for the rest).
 */
import { createRequire } from "node:module";
import { stemmer as porter } from "stemmer";

const require = createRequire(import.meta.url);
const snowball = require("snowball-stemmers") as {
  newStemmer(name: string): { stem(word: string): string };
  algorithms(): string[];
};
const stopwordsIso = require("stopwords-iso") as Record<string, string[]>;

/** Lucene's EnglishAnalyzer default stop set (what the published SciFact BM25 baseline used). */
export const LUCENE_ENGLISH_STOPWORDS = [
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
  "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
  "will", "with",
]; // biome-ignore format: a word list

const SNOWBALL_NAMES: Record<string, string> = {
  ar: "arabic", hy: "armenian", eu: "basque", ca: "catalan", cs: "czech", da: "danish", nl: "dutch",
  fi: "finnish", fr: "french", de: "german", hu: "hungarian", it: "italian", ga: "irish", no: "norwegian",
  nb: "norwegian", nn: "norwegian", pt: "portuguese", ro: "romanian", ru: "russian", es: "spanish",
  sl: "slovene", sv: "swedish", ta: "tamil", tr: "turkish",
}; // biome-ignore format: a table

interface Analyzer {
  stop: Set<string>;
  stem: (word: string) => string;
  /** Stems already computed (word → stem); cleared when it grows past MEMO_LIMIT. */
  memo: Map<string, string>;
}

const MEMO_LIMIT = 200_000;

const analyzers = new Map<string, Analyzer>();

/** The primary subtag of a BCP 47 tag, lower-case ("en-GB" → "en"); "en" when empty. */
export function primaryLanguage(language: string | undefined): string {
  const l = (language ?? "").trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return /^[a-z]{2,3}$/.test(l) ? l : "en";
}

function analyzerFor(language: string): Analyzer {
  const lang = primaryLanguage(language);
  let a = analyzers.get(lang);
  if (a) return a;
  let stem: (w: string) => string = (w) => w;
  if (lang === "en") stem = (w) => porter(w);
  else {
    const name = SNOWBALL_NAMES[lang];
    if (name && snowball.algorithms().includes(name)) {
      const s = snowball.newStemmer(name);
      stem = (w) => s.stem(w);
    }
  }
  const stop = new Set(lang === "en" ? LUCENE_ENGLISH_STOPWORDS : (stopwordsIso[lang] ?? []).map((w) => w.toLowerCase()));
  a = { stop, stem, memo: new Map() };
  analyzers.set(lang, a);
  return a;
}

// Letters (with their combining marks) and digits; everything else separates tokens.
const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const POSSESSIVE = /(\p{L})['’]s\b/gu;

/** Lower-cased raw tokens with their ordinal positions (before stop-words and stemming). */
export function tokenize(text: string): string[] {
  const normalised = text.normalize("NFC").toLowerCase().replace(POSSESSIVE, "$1");
  return normalised.match(TOKEN) ?? [];
}

export interface AnalyzedTerm {
  term: string;
  /** Ordinal position of the token in the text (stop-words keep their slots, as in Lucene). */
  position: number;
}

/** Terms with positions: tokenize, drop stop-words, stem. */
export function analyzeWithPositions(text: string, language = "en"): AnalyzedTerm[] {
  const { stop, stem, memo } = analyzerFor(language);
  const out: AnalyzedTerm[] = [];
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (stop.has(t)) continue;
    let term = memo.get(t);
    if (term === undefined) {
      term = stem(t);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(t, term);
    }
    if (term.length === 0 || term.length > 64) continue;
    out.push({ term, position: i });
  }
  return out;
}

/** The terms of `text` in order (repeats kept). */
export function analyze(text: string, language = "en"): string[] {
  return analyzeWithPositions(text, language).map((t) => t.term);
}

/**
 * The language to analyse a document with: its declared language when given, else "en" (no
 * detector yet; documents of other languages are still found by their unstemmed words).
 */
export function detectLanguage(_text: string, declared?: string): string {
  return primaryLanguage(declared);
}

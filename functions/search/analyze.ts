/**
 * Text analysis for the local index: the same function turns documents into postings and queries
 * into terms, so both sides always agree. Lower-case, Unicode letters and digits (hyphenated words
 * split into their parts, possessive 's dropped; Chinese, Japanese and Korean runs, written without
 * spaces between words, become overlapping character bigrams as in Lucene's CJKAnalyzer),
 * stop-words per language (Lucene's 33 English words for en, stopwords-iso for the others), then
 * stemming (Porter for en, Snowball for the languages it knows, none for the rest).
 */
import { createRequire } from "node:module";
import { stemmer as porter } from "stemmer";
import { detectLanguage as guessLanguage, normalizeLanguage } from "../extract/language.ts";

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

// Han, kana (with the prolonged sound mark) and Hangul: scripts whose words are not space-separated.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]/u;
const CJK_RUNS = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+)/u;

/** A CJK run as overlapping bigrams ("東京都" → "東京", "京都"); a single character stays whole. */
function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
  return out;
}

/** Lower-cased raw tokens in order (before stop-words and stemming). */
export function tokenize(text: string): string[] {
  const normalised = text.normalize("NFC").toLowerCase().replace(POSSESSIVE, "$1");
  const tokens = normalised.match(TOKEN) ?? [];
  if (!CJK.test(normalised)) return tokens;
  const out: string[] = [];
  for (const token of tokens) {
    if (!CJK.test(token)) {
      out.push(token);
      continue;
    }
    // split() with a capture group keeps the CJK runs between the other parts ("iphone发布会").
    for (const part of token.split(CJK_RUNS)) {
      if (part === "") continue;
      // A loop, not push(...): a long run's bigrams spread into one call overflow the stack.
      if (CJK.test(part)) for (const gram of bigrams(part)) out.push(gram);
      else out.push(part);
    }
  }
  return out;
}

export interface AnalyzedTerm {
  term: string;
  /** Ordinal position of the token in the text (stop-words keep their slots, as in Lucene). */
  position: number;
}

/**
 * Each of `tokens` (tokenize's) as its term, or "" for a stop-word or a token that stems to nothing
 * or to more than 64 characters: analyze without a second tokenization, for a caller that also
 * needs the words.
 */
export function termsOfTokens(tokens: string[], language = "en"): string[] {
  const { stop, stem, memo } = analyzerFor(language);
  return tokens.map((t) => {
    if (stop.has(t)) return "";
    let term = memo.get(t);
    if (term === undefined) {
      term = stem(t);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(t, term);
    }
    return term.length > 64 ? "" : term;
  });
}

/** Terms with positions: tokenize, drop stop-words, stem. */
export function analyzeWithPositions(text: string, language = "en"): AnalyzedTerm[] {
  const out: AnalyzedTerm[] = [];
  const terms = termsOfTokens(tokenize(text), language);
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as string;
    if (term.length > 0) out.push({ term, position: i });
  }
  return out;
}

/** The terms of `text` in order (repeats kept). */
export function analyze(text: string, language = "en"): string[] {
  return analyzeWithPositions(text, language).map((t) => t.term);
}

/**
 * The language to analyse a document with: its declared language when it is a plausible code, else
 * the one the extractor's detector recognises in the text (writing system, then common function
 * words), else "en".
 */
export function detectLanguage(text: string, declared?: string): string {
  return normalizeLanguage(declared) ?? guessLanguage(text) ?? "en";
}

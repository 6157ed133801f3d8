/**
 * A candidate document's title and opening, analysed for the first pages' reordering: its vector
 * (regularise.ts) and its features (rerank-features.ts). Analysing 30 candidates' text is about a
 * third of a query's JavaScript (tokenizing, stemming, sentence sets), and the same documents come
 * back as candidates query after query, so a process keeps the analyses of the documents it
 * analysed last (analysedText): within ANALYSED_CHARS characters of text, least recently used first
 * out. (SciFact's 809 train queries, each run once: 55% of the candidates' analyses were kept from
 * an earlier query; the JavaScript of a query 12.0 -> 9.0 ms on average.)
 *
 * An analysis is kept for a document id with the text it was made from (the title, the opening and
 * the language) and used only while the row the query read still holds that same text: a document
 * rewritten, or another database's document with the same id, is analysed afresh. The analysis
 * depends on nothing else (no index statistic), and callers only read it.
 */
import { termsOfTokens, tokenize } from "../analyze.ts";

/**
 * The text of a candidate analysed: its opening. A fetched web page can hold tens of thousands of
 * words, and analysing 30 of them whole would cost more than the ranking statement; what a page is
 * about shows in its opening. (SciFact's abstracts: p99 2,982 characters, so this changes none of
 * its figures.)
 */
export const VECTOR_CHARS = 4000;

/**
 * The most characters of text (titles and openings) whose analyses a process keeps: 750 web pages'
 * openings, or 2,000 abstracts; about 35 MB of analyses (SciFact's abstracts: 11.5 bytes a character).
 */
export const ANALYSED_CHARS = 3_000_000;

/** A run of text's terms: each of its words' (tokenize's) term, "" for a stop-word (termsOfTokens). */
export interface AnalysedRun {
  terms: string[];
}

/** A candidate's title and opening (VECTOR_CHARS) analysed once, the opening sentence by sentence. */
export interface AnalysedText {
  title: AnalysedRun;
  sentences: AnalysedRun[];
  /** Each sentence's distinct terms ("" among them where it holds a stop-word). */
  sentenceTerms: Set<string>[];
  /** The title's terms, each with the times the title holds it. */
  titleTf: Map<string, number>;
  /** The distinct words (tokenize's) of the title and sentences in order, each between single spaces (" cell il 6 "). */
  wordText: string;
  /** The terms with their title-weighted frequencies (termFrequencies), per title weight asked. */
  tfs: Map<number, Map<string, number>>;
}

/**
 * The title and the text's opening analysed, the opening split into sentences after . ! or ? and
 * white space (no token spans white space, so the terms are analyze's of the whole).
 */
export function analyseText(title: string, body: string, language: string): AnalysedText {
  const words = new Set<string>();
  const run = (text: string): AnalysedRun => {
    const tokens = tokenize(text);
    for (const w of tokens) words.add(w);
    return { terms: termsOfTokens(tokens, language) };
  };
  const t = run(title);
  const sentences = body
    .slice(0, VECTOR_CHARS)
    .split(/(?<=[.!?])\s+/)
    .map(run);
  const titleTf = new Map<string, number>();
  for (const term of t.terms) if (term) titleTf.set(term, (titleTf.get(term) ?? 0) + 1);
  return {
    title: t,
    sentences,
    sentenceTerms: sentences.map((sentence) => new Set(sentence.terms)),
    titleTf,
    wordText: ` ${[...words].join(" ")} `,
    tfs: new Map(),
  };
}

/** A document's terms with their title-weighted frequencies, as its postings hold them (prepare.ts). */
export function termFrequencies(text: AnalysedText, titleWeight: number): Map<string, number> {
  let tf = text.tfs.get(titleWeight);
  if (tf) return tf;
  tf = new Map<string, number>();
  for (const term of text.title.terms) if (term) tf.set(term, (tf.get(term) ?? 0) + titleWeight);
  for (const sentence of text.sentences) for (const term of sentence.terms) if (term) tf.set(term, (tf.get(term) ?? 0) + 1);
  text.tfs.set(titleWeight, tf);
  return tf;
}

/** A kept analysis and the text it was made from. */
interface Kept {
  title: string;
  opening: string;
  language: string;
  text: AnalysedText;
}

/** The kept analyses by document id, least recently used first (a Map keeps insertion order). */
const kept = new Map<string, Kept>();
let keptChars = 0;

/**
 * A copy of `s` sharing no memory with it: a slice of a long string can keep the whole of it alive,
 * and a kept opening must not hold a page's whole body.
 */
const detached = (s: string) => Buffer.from(s, "utf16le").toString("utf16le");

/**
 * analyseText's analysis of document `id`'s title and body, kept from an earlier query while the
 * document still has this title, opening and language (see the top of this file).
 */
export function analysedText(id: string, title: string, body: string, language: string): AnalysedText {
  const opening = body.length > VECTOR_CHARS ? body.slice(0, VECTOR_CHARS) : body;
  const found = kept.get(id);
  if (found) {
    kept.delete(id);
    if (found.title === title && found.opening === opening && found.language === language) {
      kept.set(id, found);
      return found.text;
    }
    keptChars -= found.title.length + found.opening.length;
  }
  const size = title.length + opening.length;
  if (size > ANALYSED_CHARS) return analyseText(title, opening, language);
  // Analysed from the copies: a term can be a slice of the text it came from.
  const copy = { title: detached(title), opening: detached(opening) };
  const text = analyseText(copy.title, copy.opening, language);
  kept.set(id, { ...copy, language, text });
  keptChars += size;
  for (const [oldest, entry] of kept) {
    if (keptChars <= ANALYSED_CHARS) break;
    kept.delete(oldest);
    keptChars -= entry.title.length + entry.opening.length;
  }
  return text;
}

/**
 * Query-biased snippets: the window of the body (about `size` characters) holding the most
 * distinct query terms (ties: more occurrences, then earlier), cut at word boundaries, with "…"
 * where the text goes on.
 */
import { analyze } from "./analyze.ts";

const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:['’]s\b)?/gu;
/** Only the start of very long bodies is scanned. */
const SCAN_LIMIT = 100_000;

/**
 * A token's terms per language, as analyze() gives them: the snippet analyses every word of ten
 * bodies per search, mostly words it has seen before, and analyze() on one word (normalising,
 * several regular expressions) cost more than the rest of the snippet together (SciFact: 3.9 ms
 * p50, 14 ms p95 for a page's ten snippets). Cleared when it grows past TOKEN_MEMO_LIMIT.
 */
const tokenTerms = new Map<string, Map<string, string[]>>();
const TOKEN_MEMO_LIMIT = 100_000;

function termsOfToken(token: string, language: string): string[] {
  let memo = tokenTerms.get(language);
  if (!memo) {
    memo = new Map();
    tokenTerms.set(language, memo);
  }
  let terms = memo.get(token);
  if (terms === undefined) {
    // One token may analyse to several terms (CJK bigrams): each is a hit on it, once.
    terms = [...new Set(analyze(token, language))];
    if (memo.size >= TOKEN_MEMO_LIMIT) memo.clear();
    memo.set(token, terms);
  }
  return terms;
}

interface Hit {
  start: number;
  end: number;
  term: string;
}

function termHits(text: string, terms: Set<string>, language: string): Hit[] {
  const hits: Hit[] = [];
  for (const m of text.slice(0, SCAN_LIMIT).matchAll(TOKEN)) {
    for (const t of termsOfToken(m[0], language)) {
      if (terms.has(t)) hits.push({ start: m.index, end: m.index + m[0].length, term: t });
    }
  }
  return hits;
}

function cut(text: string, from: number, to: number): string {
  let start = Math.max(0, from);
  let end = Math.min(text.length, to);
  if (start > 0) {
    const space = text.indexOf(" ", start);
    if (space !== -1 && space < end) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start) end = space;
  }
  const body = text.slice(start, end).trim();
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}

export function makeSnippet(body: string, query: string, language = "en", size = 240): string {
  const text = body.replace(/\s+/g, " ").trim();
  if (text.length <= size) return text;
  const terms = new Set(analyze(query, language));
  const hits = terms.size > 0 ? termHits(text, terms, language) : [];
  if (hits.length === 0) return cut(text, 0, size);
  let best = { distinct: 0, count: 0, first: 0, last: 0 };
  let j = 0;
  const inWindow = new Map<string, number>();
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i] as Hit;
    inWindow.set(h.term, (inWindow.get(h.term) ?? 0) + 1);
    while ((hits[j] as Hit).start < h.end - size) {
      const t = (hits[j] as Hit).term;
      const n = (inWindow.get(t) ?? 1) - 1;
      if (n === 0) inWindow.delete(t);
      else inWindow.set(t, n);
      j++;
    }
    const count = i - j + 1;
    if (inWindow.size > best.distinct || (inWindow.size === best.distinct && count > best.count)) {
      best = { distinct: inWindow.size, count, first: (hits[j] as Hit).start, last: h.end };
    }
  }
  // Centre the matched span in the window, keeping a little context before the first match.
  const slack = size - (best.last - best.first);
  const lead = Math.min(Math.floor(slack / 3), best.first);
  const from = best.first - lead;
  return cut(text, from, from + size);
}

/**
 * Turns an IndexDocument into what the index stores: the owner and normalised URL (the identity),
 * the analysed terms with their (title-weighted) frequencies, the length and a content hash.
 */
import { createHash } from "node:crypto";
import { DOMAIN_TYPES, type DomainType } from "../../../schema/search.ts";
import { GLOBAL_OWNER } from "../../../schema/tables/search.ts";
import { analyze, detectLanguage } from "../analyze.ts";
import type { IndexDocument } from "./document.ts";

export interface RankingOptions {
  /** Each title occurrence counts this many times in the term frequency (1: flat title + text). */
  titleWeight: number;
}

/**
 * Title weight 3: chosen on all 809 SciFact train queries (nDCG@10 flat 0.6966, ×2 0.6982,
 * ×3 0.7006, ×4 0.6991), not per query.
 */
export const DEFAULT_RANKING: RankingOptions = { titleWeight: 3 };

export interface PreparedDocument {
  url: string;
  /** GLOBAL_OWNER or an account id. */
  ownerAccountId: string;
  host: string;
  title: string;
  body: string;
  siteName: string;
  type: DomainType;
  language: string;
  publishedAt: string | null;
  publisher: string | null;
  authors: string[] | null;
  venue: string | null;
  year: number | null;
  pdfUrl: string | null;
  citedByCount: number | null;
  length: number;
  contentHash: string;
  /** term → tf (title-weighted). */
  postings: Map<string, { tf: number }>;
}

/**
 * Lower-case scheme and host (the URL parser does both), no fragment, no default port; path and
 * query kept as they are. Only http(s). Throws on anything else.
 */
export function normalizeUrl(raw: string): URL {
  const u = new URL(raw.trim());
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`unsupported scheme ${u.protocol}`);
  u.hash = "";
  u.username = "";
  u.password = "";
  return u;
}

/**
 * The most characters of a document's text the index reads and keeps, and of its title. A fetched
 * page may hold 15 MiB of text, and a text of distinct tokens (a log, a list of ids) is a row per
 * token: 5 MB of them took 8.5 s and 1.5 GB to index as one document, a database's memory that the
 * embedded one never gives back. A million characters is some 150,000 words, a long book's chapter;
 * what lies past it is not found by search (the fetch result itself is whole).
 */
export const MAX_INDEXED_CHARS = 1_000_000;
export const MAX_TITLE_CHARS = 1_000;

/** `s` cut to at most `max` characters, at the last whitespace before the cut when there is one near it. */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  // Not inside a surrogate pair.
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  for (let i = end; i > end - 200 && i > 0; i--) {
    if (/\s/.test(s[i] as string)) return s.slice(0, i).trimEnd();
  }
  return s.slice(0, end);
}

const DATE = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

function cleanDate(d: string | undefined): string | null {
  const m = d ? DATE.exec(d.trim()) : null;
  if (!m?.[1]) return null;
  return Number.isNaN(Date.parse(m[1])) ? null : m[1];
}

const intOrNull = (n: unknown): number | null => (typeof n === "number" && Number.isFinite(n) ? Math.trunc(n) : null);
const strOrNull = (s: unknown): string | null => (typeof s === "string" && s.trim() !== "" ? s.trim() : null);

/** The prepared document, or the reason it is refused. */
export function prepareDocument(doc: IndexDocument, ranking: RankingOptions): PreparedDocument | { reason: string } {
  let url: URL;
  try {
    url = normalizeUrl(String(doc.url ?? ""));
  } catch (err) {
    return { reason: `invalid url: ${err instanceof Error ? err.message : String(err)}` };
  }
  const title = typeof doc.title === "string" ? cutText(doc.title.trim(), MAX_TITLE_CHARS) : "";
  const body = typeof doc.text === "string" ? cutText(doc.text.trim(), MAX_INDEXED_CHARS) : "";
  if (!title && !body) return { reason: "no title and no text" };
  const type = doc.type ?? "web";
  if (!(DOMAIN_TYPES as readonly string[]).includes(type)) return { reason: `unknown type ${type}` };
  const language = detectLanguage(`${title}\n${body}`, doc.language);
  const postings = new Map<string, { tf: number }>();
  // Title and body in one field (the baseline's "flat title + text"); title terms may weigh more.
  const add = (text: string, weight: number) => {
    for (const term of analyze(text, language)) {
      const p = postings.get(term);
      if (p) p.tf += weight;
      else postings.set(term, { tf: weight });
    }
  };
  add(title, ranking.titleWeight);
  add(body, 1);
  let length = 0;
  for (const p of postings.values()) length += p.tf;
  const authors = Array.isArray(doc.authors) ? doc.authors.filter((a) => typeof a === "string" && a.trim()) : null;
  const prepared: PreparedDocument = {
    url: url.toString(),
    ownerAccountId: doc.ownerAccountId || GLOBAL_OWNER,
    host: url.hostname.toLowerCase(),
    title,
    body,
    siteName: strOrNull(doc.siteName) ?? url.hostname.toLowerCase().replace(/^www\./, ""),
    type,
    language,
    publishedAt: cleanDate(doc.publishedDate),
    publisher: strOrNull(doc.publisher),
    authors: authors?.length ? authors : null,
    venue: strOrNull(doc.venue),
    year: intOrNull(doc.year),
    pdfUrl: strOrNull(doc.pdfUrl),
    citedByCount: intOrNull(doc.citedByCount),
    length: Math.round(length),
    contentHash: "",
    postings,
  };
  // The owner is part of the identity, not of the content (hashes stay valid across visibilities).
  const { postings: _p, contentHash: _h, ownerAccountId: _o, ...hashed } = prepared;
  prepared.contentHash = createHash("sha256")
    .update(JSON.stringify({ ...hashed, titleWeight: ranking.titleWeight }))
    .digest("base64url");
  return prepared;
}

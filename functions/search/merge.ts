/**
 * Merging the answers of several providers into one page (spec 2.8, 4.7):
 * 1. interleave: each provider's hits in its own rank order, taken round-robin in provider order;
 * 2. de-duplicate by normalised URL (scheme, `www.`, fragment, default port and a trailing slash
 *    ignored): the first occurrence keeps its place, the richer hit supplies the fields and the
 *    other fills the gaps;
 * 3. filter again by the request's domains, dates and years (defence in depth: a hit whose known
 *    date or year is outside the bounds is dropped; an undated hit is kept);
 * 4. cut to PAGE_SIZE and number `position` from page×PAGE_SIZE+1.
 */

import { trimEndWhere } from "../lib/trim.ts";
import { postFilter } from "./providers/post-filter.ts";
import type { SearchResultWire } from "./search.schemas.ts";
import { PAGE_SIZE, type SearchHit, type SearchQuery } from "./types.ts";

/** The identity of a result URL, or null when it is not an http(s) URL. */
export function normaliseResultUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = u.hostname.toLowerCase().replace(/^www\./, "");
  const path = u.pathname.length > 1 ? trimEndWhere(u.pathname, (c) => c === "/") : "";
  return `${host}${u.port ? `:${u.port}` : ""}${path}${u.search}`;
}

const OPTIONAL = ["date", "publisher", "authors", "venue", "year", "citedByCount", "pdfUrl"] as const;

function richness(h: SearchHit): number {
  let n = Math.min(h.snippet.length, 500) / 100 + (h.title ? 1 : 0);
  for (const k of OPTIONAL) if (h[k] !== undefined) n += 1;
  return n;
}

function combine(a: SearchHit, b: SearchHit): SearchHit {
  const [rich, poor] = richness(b) > richness(a) ? [b, a] : [a, b];
  const out: SearchHit = { ...rich };
  if (!out.title) out.title = poor.title;
  if (!out.snippet) out.snippet = poor.snippet;
  if (!out.siteName) out.siteName = poor.siteName;
  for (const k of OPTIONAL) if (out[k] === undefined && poor[k] !== undefined) Object.assign(out, { [k]: poor[k] });
  return out;
}

export function interleave(lists: SearchHit[][]): SearchHit[] {
  const sorted = lists.map((l) => [...l].sort((x, y) => x.rank - y.rank));
  const out: SearchHit[] = [];
  const longest = Math.max(0, ...sorted.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of sorted) if (l[i]) out.push(l[i] as SearchHit);
  return out;
}

export function dedupe(hits: SearchHit[]): SearchHit[] {
  const byKey = new Map<string, SearchHit>();
  for (const h of hits) {
    const key = normaliseResultUrl(h.url);
    if (key === null) continue;
    const seen = byKey.get(key);
    byKey.set(key, seen ? combine(seen, h) : h);
  }
  return [...byKey.values()];
}

/**
 * The same post-filter every upstream provider applies (defence in depth: an upstream may ignore
 * a filter, and the local index shares it): one rule set for hosts, dates and years.
 */
export { postFilter };

/** Spec 2.8: the optional fields appear only for their domain types. */
export function toWire(h: SearchHit, position: number, q: SearchQuery): SearchResultWire {
  const research = q.domainType === "research_paper";
  const site = h.siteName || new URL(h.url).hostname.replace(/^www\./, "");
  return {
    position,
    site_name: site,
    title: h.title,
    snippet: h.snippet,
    url: h.url,
    ...(h.date && !research ? { date: h.date } : {}),
    ...(h.publisher && q.domainType === "news" ? { publisher: h.publisher } : {}),
    ...(research && h.authors ? { authors: h.authors } : {}),
    ...(research && h.venue ? { venue: h.venue } : {}),
    ...(research && h.year !== undefined ? { year: h.year } : {}),
    ...(research && h.citedByCount !== undefined ? { cited_by_count: h.citedByCount } : {}),
    ...(research && h.pdfUrl ? { pdf_url: h.pdfUrl } : {}),
  };
}

/** The whole pipeline: the page of results as the response carries them. */
export function mergeResults(lists: SearchHit[][], q: SearchQuery, now: Date): SearchResultWire[] {
  const hits = postFilter(dedupe(interleave(lists)), q, now).slice(0, PAGE_SIZE);
  return hits.map((h, i) => toWire(h, q.page * PAGE_SIZE + i + 1, q));
}

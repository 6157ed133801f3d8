import {
  PAGE_SIZE,
  ProviderError,
  type ProviderResult,
  type SearchHit,
  type SearchProvider,
  type SearchQuery,
} from "../types.ts";
import { asArray, asNumber, asRecord, asString, DEFAULT_TIMEOUT_MS, type FetchLike, getJson } from "./http.ts";
import { lookbackMinutes, narrowestWindow, postFilter, withSiteOperators } from "./post-filter.ts";
import { hostOf, isoDay, plainText, siteNameOf } from "./text.ts";

export interface SearxngOptions {
  /** The instance's base URL (OSPREY_SEARXNG_URL), e.g. http://searxng:8080; credentials in it become Basic auth. */
  baseUrl: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Clock for relative dates and recency post-filtering (tests). */
  now?: () => Date;
}

const DAY = 1_440;
/**
 * SearXNG's `time_range` values. Engines read "month" as a calendar month back (28 to 31 days), so a request
 * fits it only up to 28 days; "year" likewise up to 365 days. Longer look-backs go up without a window.
 */
const TIME_RANGES = [
  ["day", DAY],
  ["week", 7 * DAY],
  ["month", 28 * DAY],
  ["year", 365 * DAY],
] as const;

export const SEARXNG_JSON_DISABLED =
  "SearXNG refused format=json (403): the instance must enable the JSON output format — add json to search.formats in its settings.yml (search: formats: [html, json])";

/** The SearXNG `/search` URL for a query (exported for tests and diagnostics). */
export function searxngUrl(base: URL, q: SearchQuery, now: Date): URL {
  const url = new URL("search", base.href.endsWith("/") ? base : new URL(`${base.href}/`));
  url.username = "";
  url.password = "";
  url.search = "";
  const params = url.searchParams;
  params.set("q", withSiteOperators(q));
  params.set("format", "json");
  params.set("categories", q.domainType === "news" ? "news" : "general");
  // Plain ISO 639-1: every SearXNG version accepts it, whereas a made-up pairing such as "en-FR" is refused.
  params.set("language", q.language || "all");
  params.set("pageno", String(q.page + 1));
  const range = narrowestWindow(lookbackMinutes(q, now), TIME_RANGES);
  if (range) params.set("time_range", range);
  return url;
}

function basicAuth(base: URL): Record<string, string> {
  if (!base.username && !base.password) return {};
  const user = decodeURIComponent(base.username);
  const pass = decodeURIComponent(base.password);
  return { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` };
}

function toHit(raw: unknown, q: SearchQuery, now: Date): Omit<SearchHit, "rank"> | undefined {
  const r = asRecord(raw);
  const url = asString(r.url);
  const host = url ? hostOf(url) : undefined;
  if (!url || !host) return undefined;
  const siteName = siteNameOf(host);
  const date = isoDay(r.publishedDate, now) ?? isoDay(r.pubdate, now);
  return {
    url,
    title: plainText(r.title) || siteName,
    snippet: plainText(r.content),
    siteName,
    ...(date ? { date } : {}),
    // SearXNG names the engine, not the outlet: the site's own host is the best publisher it gives.
    ...(q.domainType === "news" ? { publisher: siteName } : {}),
  };
}

/** SearXNG through its JSON API (`/search?format=json`), for web (category general) and news. */
export function createSearxngProvider(opts: SearxngOptions): SearchProvider {
  const base = new URL(opts.baseUrl);
  const headers = basicAuth(base);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clock = opts.now ?? (() => new Date());
  return {
    name: "searxng",
    supports: (q) => q.domainType === "web" || q.domainType === "news",
    async search(q: SearchQuery, signal: AbortSignal): Promise<ProviderResult> {
      const now = clock();
      const body = asRecord(
        await getJson({
          provider: "searxng",
          url: searxngUrl(base, q, now),
          headers,
          timeoutMs,
          signal,
          fetch: opts.fetch,
          secrets: [base.password ? decodeURIComponent(base.password) : undefined],
          describeStatus: (status) => (status === 403 ? SEARXNG_JSON_DISABLED : undefined),
        }),
      );
      if (!Array.isArray(body.results)) throw new ProviderError("searxng", "searxng answered JSON without a results array");
      const results = asArray(body.results);
      const hits = results
        .map((raw, i) => {
          const hit = toHit(raw, q, now);
          return hit ? { ...hit, rank: q.page * PAGE_SIZE + i + 1 } : undefined;
        })
        .filter((hit): hit is SearchHit => hit !== undefined);
      const total = asNumber(body.number_of_results);
      return { hits: postFilter(hits, q, now).slice(0, PAGE_SIZE), ...(total ? { total } : {}) };
    },
  };
}

import type { SearchProvider, SearchQuery } from "../types.ts";
import { asNumber, asRecord, asString } from "./http.ts";
import { DAY_MINUTES, lookbackMinutes, narrowestWindow, withSiteOperators } from "./post-filter.ts";
import { isoDay, plainText } from "./text.ts";
import { baseHit, createUpstreamProvider, endpointUrl, type UnrankedHit, type UpstreamOptions } from "./upstream.ts";

export interface SearxngOptions extends UpstreamOptions {
  /** The instance's base URL (OSPREY_SEARXNG_URL), e.g. http://searxng:8080; credentials in it become Basic auth. */
  baseUrl: string;
  /** Clock for relative dates and recency post-filtering (tests). */
  now?: () => Date;
}

/**
 * SearXNG's `time_range` values. Engines read "month" as a calendar month back (28 to 31 days), so a request
 * fits it only up to 28 days; "year" likewise up to 365 days. Longer look-backs go up without a window.
 */
const TIME_RANGES = [
  ["day", DAY_MINUTES],
  ["week", 7 * DAY_MINUTES],
  ["month", 28 * DAY_MINUTES],
  ["year", 365 * DAY_MINUTES],
] as const;

export const SEARXNG_JSON_DISABLED =
  "SearXNG refused format=json (403): the instance must enable the JSON output format — add json to search.formats in its settings.yml (search: formats: [html, json])";

/** The SearXNG `/search` URL for a query (exported for tests and diagnostics). */
export function searxngUrl(base: URL, q: SearchQuery, now: Date): URL {
  const url = endpointUrl(base.href, "search");
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

function toHit(raw: unknown, q: SearchQuery, now: Date): UnrankedHit | undefined {
  const r = asRecord(raw);
  const hit = baseHit(asString(r.url), {
    title: plainText(r.title),
    snippet: plainText(r.content),
    date: isoDay(r.publishedDate, now) ?? isoDay(r.pubdate, now),
  });
  // SearXNG names the engine, not the outlet: the site's own host is the best publisher it gives.
  return hit && q.domainType === "news" ? { ...hit, publisher: hit.siteName } : hit;
}

/** SearXNG through its JSON API (`/search?format=json`), for web (category general) and news. */
export function createSearxngProvider(opts: SearxngOptions): SearchProvider {
  const base = new URL(opts.baseUrl);
  const headers = basicAuth(base);
  return createUpstreamProvider(
    {
      name: "searxng",
      supports: (q) => q.domainType === "web" || q.domainType === "news",
      request: (q, now) => ({
        url: searxngUrl(base, q, now),
        headers,
        secrets: [base.password ? decodeURIComponent(base.password) : undefined],
        describeStatus: (status) => (status === 403 ? SEARXNG_JSON_DISABLED : undefined),
      }),
      // SearXNG reports 0 results when its engines give no estimate: no total then.
      results: (body) => ({ list: body.results, total: asNumber(body.number_of_results) || undefined }),
      toHit,
    },
    opts,
  );
}

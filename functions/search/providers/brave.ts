import {
  PAGE_SIZE,
  ProviderError,
  type ProviderResult,
  type SearchHit,
  type SearchProvider,
  type SearchQuery,
} from "../types.ts";
import { asArray, asRecord, asString, DEFAULT_TIMEOUT_MS, type FetchLike, getJson } from "./http.ts";
import { narrowestWindow, postFilter, withSiteOperators } from "./post-filter.ts";
import { hostOf, isoDay, plainText, siteNameOf, utcDay } from "./text.ts";

export interface BraveOptions {
  /** OSPREY_BRAVE_API_KEY, sent as X-Subscription-Token; never appears in errors. */
  apiKey: string;
  /** OSPREY_BRAVE_URL; default https://api.search.brave.com. */
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  now?: () => Date;
}

/** Brave's `offset` is a page index, 0 to 9. */
export const BRAVE_MAX_OFFSET = 9;

const DAY = 1_440;
/** Brave's fixed freshness windows: past 24 h, 7 days, 31 days, 365 days. */
const FRESHNESS = [
  ["pd", DAY],
  ["pw", 7 * DAY],
  ["pm", 31 * DAY],
  ["py", 365 * DAY],
] as const;

/** Countries Brave's `country` parameter accepts; any other location searches worldwide ("ALL"). */
const COUNTRIES = new Set(
  "AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US".split(" "),
);

/** Brave's `search_lang` codes that are plain ISO 639-1. */
const PLAIN_LANGUAGES = new Set(
  "ar eu bn bg ca hr cs da nl en et fi fr gl de gu he hi hu is it kn ko lv lt ms ml mr nb pl pa ro ru sr sk sl es sv ta te th tr uk vi".split(
    " ",
  ),
);

/** Our ISO 639-1 language (+ country) as Brave's `search_lang`, which has its own codes for a few; undefined = omit. */
export function braveSearchLang(language: string, location: string): string | undefined {
  const lang = language.toLowerCase();
  const country = location.toUpperCase();
  if (lang === "ja") return "jp";
  if (lang === "zh") return ["TW", "HK", "MO"].includes(country) ? "zh-hant" : "zh-hans";
  if (lang === "pt") return country === "PT" ? "pt-pt" : "pt-br";
  if (lang === "en" && country === "GB") return "en-gb";
  if (lang === "no" || lang === "nn") return "nb";
  return PLAIN_LANGUAGES.has(lang) ? lang : undefined;
}

/** Brave's `freshness`: a fixed window for recency (or a day range past a year), a day range for dates. */
export function braveFreshness(q: SearchQuery, now: Date): string | undefined {
  if (q.recencyMinutes !== undefined) {
    const fixed = narrowestWindow(q.recencyMinutes, FRESHNESS);
    if (fixed) return fixed;
    return `${utcDay(new Date(now.getTime() - q.recencyMinutes * 60_000))}to${utcDay(now)}`;
  }
  if (!q.afterDate && !q.beforeDate) return undefined;
  const tomorrow = utcDay(new Date(now.getTime() + DAY * 60_000));
  return `${q.afterDate ?? "1970-01-01"}to${q.beforeDate ?? tomorrow}`;
}

export function braveUrl(base: string, q: SearchQuery, now: Date): URL {
  const endpoint = q.domainType === "news" ? "res/v1/news/search" : "res/v1/web/search";
  const url = new URL(endpoint, base.endsWith("/") ? base : `${base}/`);
  const params = url.searchParams;
  params.set("q", withSiteOperators(q));
  params.set("country", COUNTRIES.has(q.location.toUpperCase()) ? q.location.toUpperCase() : "ALL");
  const lang = braveSearchLang(q.language, q.location);
  if (lang) params.set("search_lang", lang);
  params.set("count", String(PAGE_SIZE));
  params.set("offset", String(q.page));
  const freshness = braveFreshness(q, now);
  if (freshness) params.set("freshness", freshness);
  if (q.domainType === "web") params.set("result_filter", "web");
  return url;
}

function toHit(raw: unknown, q: SearchQuery, now: Date): Omit<SearchHit, "rank"> | undefined {
  const r = asRecord(raw);
  const url = asString(r.url);
  const host = url ? hostOf(url) : undefined;
  if (!url || !host) return undefined;
  const siteName = siteNameOf(host);
  const date = isoDay(r.page_age, now) ?? isoDay(r.age, now);
  const metaHost = asString(asRecord(r.meta_url).hostname);
  const publisher =
    asString(asRecord(r.profile).name) ?? asString(r.source) ?? (metaHost ? siteNameOf(metaHost.toLowerCase()) : siteName);
  return {
    url,
    title: plainText(r.title) || siteName,
    snippet: plainText(r.description),
    siteName,
    ...(date ? { date } : {}),
    ...(q.domainType === "news" ? { publisher: plainText(publisher) || siteName } : {}),
  };
}

function describeStatus(status: number, detail: string): string | undefined {
  const suffix = detail ? `: ${detail}` : "";
  if (status === 401 || status === 403) return `brave rejected the API key (${status})${suffix}`;
  if (status === 422) return `brave refused the request parameters (422)${suffix}`;
  return undefined;
}

/** Brave Search API: web (`/res/v1/web/search`) and news (`/res/v1/news/search`), pages 0 to 9. */
export function createBraveProvider(opts: BraveOptions): SearchProvider {
  const base = opts.baseUrl ?? "https://api.search.brave.com";
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clock = opts.now ?? (() => new Date());
  return {
    name: "brave",
    supports: (q) => (q.domainType === "web" || q.domainType === "news") && q.page <= BRAVE_MAX_OFFSET,
    async search(q: SearchQuery, signal: AbortSignal): Promise<ProviderResult> {
      const now = clock();
      const body = asRecord(
        await getJson({
          provider: "brave",
          url: braveUrl(base, q, now),
          headers: { "x-subscription-token": opts.apiKey },
          timeoutMs,
          signal,
          fetch: opts.fetch,
          secrets: [opts.apiKey],
          redirect: "error",
          describeStatus,
        }),
      );
      const list = q.domainType === "news" ? body.results : asRecord(body.web).results;
      // A web answer without a `web` section simply has no web results (Brave omits empty sections).
      if (list !== undefined && !Array.isArray(list)) {
        throw new ProviderError("brave", "brave answered JSON without a results array");
      }
      if (list === undefined && q.domainType === "news") {
        throw new ProviderError("brave", "brave answered JSON without a results array");
      }
      const hits = asArray(list)
        .map((raw, i) => {
          const hit = toHit(raw, q, now);
          return hit ? { ...hit, rank: q.page * PAGE_SIZE + i + 1 } : undefined;
        })
        .filter((hit): hit is SearchHit => hit !== undefined);
      return { hits: postFilter(hits, q, now).slice(0, PAGE_SIZE) };
    },
  };
}

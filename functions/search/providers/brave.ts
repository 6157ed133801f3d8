import { PAGE_SIZE, type SearchProvider, type SearchQuery } from "../types.ts";
import { asRecord, asString, withDetail } from "./http.ts";
import { DAY_MINUTES, narrowestWindow, withSiteOperators } from "./post-filter.ts";
import { isoDay, plainText, siteNameOf, utcDay } from "./text.ts";
import { baseHit, createUpstreamProvider, endpointUrl, type UnrankedHit, type UpstreamOptions } from "./upstream.ts";

export interface BraveOptions extends UpstreamOptions {
  /** OSPREY_BRAVE_API_KEY, sent as X-Subscription-Token; never appears in errors. */
  apiKey: string;
  /** OSPREY_BRAVE_URL; default https://api.search.brave.com. */
  baseUrl?: string;
  /** Clock for relative dates, freshness and recency post-filtering (tests). */
  now?: () => Date;
}

/** Brave's `offset` is a page index, 0 to 9. */
export const BRAVE_MAX_OFFSET = 9;

/** Brave's fixed freshness windows: past 24 h, 7 days, 31 days, 365 days. */
const FRESHNESS = [
  ["pd", DAY_MINUTES],
  ["pw", 7 * DAY_MINUTES],
  ["pm", 31 * DAY_MINUTES],
  ["py", 365 * DAY_MINUTES],
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
  const tomorrow = utcDay(new Date(now.getTime() + DAY_MINUTES * 60_000));
  return `${q.afterDate ?? "1970-01-01"}to${q.beforeDate ?? tomorrow}`;
}

export function braveUrl(base: string, q: SearchQuery, now: Date): URL {
  const endpoint = q.domainType === "news" ? "res/v1/news/search" : "res/v1/web/search";
  const url = endpointUrl(base, endpoint);
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

function toHit(raw: unknown, q: SearchQuery, now: Date): UnrankedHit | undefined {
  const r = asRecord(raw);
  const hit = baseHit(asString(r.url), {
    title: plainText(r.title),
    snippet: plainText(r.description),
    date: isoDay(r.page_age, now) ?? isoDay(r.age, now),
  });
  if (!hit) return undefined;
  if (q.domainType !== "news") return hit;
  const metaHost = asString(asRecord(r.meta_url).hostname);
  const publisher =
    asString(asRecord(r.profile).name) ?? asString(r.source) ?? (metaHost ? siteNameOf(metaHost.toLowerCase()) : hit.siteName);
  return { ...hit, publisher: plainText(publisher) || hit.siteName };
}

function describeStatus(status: number, detail: string): string | undefined {
  if (status === 401 || status === 403) return withDetail(`brave rejected the API key (${status})`, detail);
  if (status === 422) return withDetail("brave refused the request parameters (422)", detail);
  return undefined;
}

/** Brave Search API: web (`/res/v1/web/search`) and news (`/res/v1/news/search`), pages 0 to 9. */
export function createBraveProvider(opts: BraveOptions): SearchProvider {
  const base = opts.baseUrl ?? "https://api.search.brave.com";
  return createUpstreamProvider(
    {
      name: "brave",
      supports: (q) => (q.domainType === "web" || q.domainType === "news") && q.page <= BRAVE_MAX_OFFSET,
      request: (q, now) => ({
        url: braveUrl(base, q, now),
        headers: { "x-subscription-token": opts.apiKey },
        secrets: [opts.apiKey],
        // The key travels in a header: never let a redirect carry it to another host.
        redirect: "error",
        describeStatus,
      }),
      results: (body, q) => {
        if (q.domainType === "news") return { list: body.results };
        // A web answer without a `web` section simply has no web results (Brave omits empty sections).
        const list = asRecord(body.web).results;
        return { list: list === undefined ? [] : list };
      },
      toHit,
    },
    opts,
  );
}

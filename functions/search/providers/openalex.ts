import {
  PAGE_SIZE,
  ProviderError,
  type ProviderResult,
  type SearchHit,
  type SearchProvider,
  type SearchQuery,
} from "../types.ts";
import { asArray, asNumber, asRecord, asString, DEFAULT_TIMEOUT_MS, type FetchLike, getJson } from "./http.ts";
import { postFilter } from "./post-filter.ts";
import { hostOf, isoDay, plainText, siteNameOf, truncate } from "./text.ts";

export interface OpenAlexOptions {
  /** OSPREY_OPENALEX_URL; default https://api.openalex.org. */
  baseUrl?: string;
  /** OSPREY_OPENALEX_API_KEY, sent as `api_key`; never appears in errors. */
  apiKey?: string;
  /** Contact address for OpenAlex's polite pool, sent as `mailto`. */
  mailto?: string;
  timeoutMs?: number;
  fetch?: FetchLike;
}

/** Snippet length reconstructed from an abstract. */
const SNIPPET_CHARS = 320;

/** Rebuilds the abstract text from OpenAlex's `abstract_inverted_index` ({word: [positions]}). */
export function abstractFromInvertedIndex(index: unknown): string {
  const words: string[] = [];
  for (const [word, positions] of Object.entries(asRecord(index))) {
    for (const pos of asArray(positions)) {
      if (typeof pos === "number" && Number.isInteger(pos) && pos >= 0 && pos < 100_000) words[pos] = word;
    }
  }
  return words.filter((w) => w !== undefined).join(" ");
}

/** The `publication_year` filter for inclusive year bounds (undefined when unbounded). */
export function yearFilter(min: number | undefined, max: number | undefined): string | undefined {
  const lo = min !== undefined && min > 0 ? min : undefined;
  if (lo !== undefined && max !== undefined) return `publication_year:${lo}-${max}`;
  if (lo !== undefined) return `publication_year:>${lo - 1}`;
  if (max !== undefined) return `publication_year:<${max + 1}`;
  return undefined;
}

export function openAlexUrl(base: string, q: SearchQuery, auth: { apiKey?: string; mailto?: string }): URL {
  const url = new URL("works", base.endsWith("/") ? base : `${base}/`);
  const params = url.searchParams;
  params.set("search", q.text.trim());
  const filter = yearFilter(q.pubYearMin, q.pubYearMax);
  if (filter) params.set("filter", filter);
  params.set("per-page", String(PAGE_SIZE));
  params.set("page", String(q.page + 1));
  if (auth.apiKey) params.set("api_key", auth.apiKey);
  if (auth.mailto) params.set("mailto", auth.mailto);
  return url;
}

/** Maps one OpenAlex work record to a hit (undefined when it has no usable URL). */
export function workToHit(raw: unknown): Omit<SearchHit, "rank"> | undefined {
  const w = asRecord(raw);
  const primary = asRecord(w.primary_location);
  const best = asRecord(w.best_oa_location);
  const url = [primary.landing_page_url, w.doi, best.landing_page_url, w.id]
    .map(asString)
    .find((u) => u !== undefined && hostOf(u) !== undefined);
  const host = url ? hostOf(url) : undefined;
  if (!url || !host) return undefined;
  const siteName = siteNameOf(host);
  const authors = asArray(w.authorships)
    .map((a) => plainText(asRecord(asRecord(a).author).display_name))
    .filter(Boolean);
  const venue = plainText(asRecord(primary.source).display_name) || plainText(asRecord(best.source).display_name);
  const year = asNumber(w.publication_year);
  const date = isoDay(w.publication_date);
  const citedByCount = asNumber(w.cited_by_count);
  const pdfUrl = [primary.pdf_url, best.pdf_url].map(asString).find((u) => u !== undefined && hostOf(u) !== undefined);
  return {
    url,
    title: plainText(w.display_name) || plainText(w.title) || siteName,
    snippet: truncate(plainText(abstractFromInvertedIndex(w.abstract_inverted_index)), SNIPPET_CHARS),
    siteName,
    ...(date ? { date } : {}),
    authors,
    ...(venue ? { venue } : {}),
    ...(year !== undefined ? { year: Math.trunc(year) } : {}),
    ...(citedByCount !== undefined ? { citedByCount } : {}),
    ...(pdfUrl ? { pdfUrl } : {}),
  };
}

function describeStatus(status: number, detail: string): string | undefined {
  const suffix = detail ? `: ${detail}` : "";
  // OpenAlex answers 403 when the per-second or credit limit is exceeded, 401 for a bad key.
  if (status === 401) return `openalex rejected the API key (401)${suffix}`;
  if (status === 403) return `openalex refused the request (403): rate limit exceeded or API key not accepted${suffix}`;
  return undefined;
}

/** OpenAlex works search (`/works?search=`), research papers only. */
export function createOpenAlexProvider(opts: OpenAlexOptions = {}): SearchProvider {
  const base = opts.baseUrl ?? "https://api.openalex.org";
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    name: "openalex",
    supports: (q) => q.domainType === "research_paper" && q.text.trim().length > 0,
    async search(q: SearchQuery, signal: AbortSignal): Promise<ProviderResult> {
      const body = asRecord(
        await getJson({
          provider: "openalex",
          url: openAlexUrl(base, q, opts),
          timeoutMs,
          signal,
          fetch: opts.fetch,
          secrets: [opts.apiKey],
          describeStatus,
        }),
      );
      if (!Array.isArray(body.results)) throw new ProviderError("openalex", "openalex answered JSON without a results array");
      const hits = body.results
        .map((raw, i) => {
          const hit = workToHit(raw);
          return hit ? { ...hit, rank: q.page * PAGE_SIZE + i + 1 } : undefined;
        })
        .filter((hit): hit is SearchHit => hit !== undefined);
      const total = asNumber(asRecord(body.meta).count);
      return { hits: postFilter(hits, q).slice(0, PAGE_SIZE), ...(total !== undefined ? { total } : {}) };
    },
  };
}

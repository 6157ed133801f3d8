import { PAGE_SIZE, type SearchProvider, type SearchQuery } from "../types.ts";
import { asArray, asNumber, asRecord, asString, withDetail } from "./http.ts";
import { hostOf, isoDay, plainText, truncate } from "./text.ts";
import { baseHit, createUpstreamProvider, endpointUrl, type UnrankedHit, type UpstreamOptions } from "./upstream.ts";

export interface OpenAlexOptions extends UpstreamOptions {
  /** OSPREY_OPENALEX_URL; default https://api.openalex.org. */
  baseUrl?: string;
  /** OSPREY_OPENALEX_API_KEY, sent as `api_key`; never appears in errors. */
  apiKey?: string;
  /** Contact address for OpenAlex's polite pool, sent as `mailto`. */
  mailto?: string;
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
  const url = endpointUrl(base, "works");
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

/** The first of `candidates` that is an http(s) URL. */
const firstHttpUrl = (candidates: unknown[]): string | undefined =>
  candidates.map(asString).find((u) => u !== undefined && hostOf(u) !== undefined);

/** Maps one OpenAlex work record to a hit (undefined when it has no usable URL). */
export function workToHit(raw: unknown): UnrankedHit | undefined {
  const w = asRecord(raw);
  const primary = asRecord(w.primary_location);
  const best = asRecord(w.best_oa_location);
  const hit = baseHit(firstHttpUrl([primary.landing_page_url, w.doi, best.landing_page_url, w.id]), {
    title: plainText(w.display_name) || plainText(w.title),
    snippet: truncate(plainText(abstractFromInvertedIndex(w.abstract_inverted_index)), SNIPPET_CHARS),
    date: isoDay(w.publication_date),
  });
  if (!hit) return undefined;
  const authors = asArray(w.authorships)
    .map((a) => plainText(asRecord(asRecord(a).author).display_name))
    .filter(Boolean);
  const venue = plainText(asRecord(primary.source).display_name) || plainText(asRecord(best.source).display_name);
  const year = asNumber(w.publication_year);
  const citedByCount = asNumber(w.cited_by_count);
  const pdfUrl = firstHttpUrl([primary.pdf_url, best.pdf_url]);
  return {
    ...hit,
    authors,
    ...(venue ? { venue } : {}),
    ...(year !== undefined ? { year: Math.trunc(year) } : {}),
    ...(citedByCount !== undefined ? { citedByCount } : {}),
    ...(pdfUrl ? { pdfUrl } : {}),
  };
}

function describeStatus(status: number, detail: string): string | undefined {
  // OpenAlex answers 403 when the per-second or credit limit is exceeded, 401 for a bad key.
  if (status === 401) return withDetail("openalex rejected the API key (401)", detail);
  if (status === 403)
    return withDetail("openalex refused the request (403): rate limit exceeded or API key not accepted", detail);
  return undefined;
}

/** OpenAlex works search (`/works?search=`), research papers only. */
export function createOpenAlexProvider(opts: OpenAlexOptions = {}): SearchProvider {
  const base = opts.baseUrl ?? "https://api.openalex.org";
  return createUpstreamProvider(
    {
      name: "openalex",
      supports: (q) => q.domainType === "research_paper" && q.text.trim().length > 0,
      request: (q) => ({ url: openAlexUrl(base, q, opts), secrets: [opts.apiKey], describeStatus }),
      results: (body) => ({ list: body.results, total: asNumber(asRecord(body.meta).count) }),
      // Works carry calendar dates, never relative ones: the hit needs no clock.
      toHit: (raw) => workToHit(raw),
    },
    opts,
  );
}

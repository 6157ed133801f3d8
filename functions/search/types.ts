/**
 * The search contracts (spec 2.8, 4.7): the executed query every provider receives, the hit every
 * provider returns, and the provider port. Providers: the local index (always on), SearXNG, Brave,
 * OpenAlex. Results are merged, de-duplicated by normalised URL and re-numbered by the service.
 */

import type { DomainType } from "../../schema/search.ts";

/** Results per page (spec 4.7 `page` counts pages of this size from 0). */
export const PAGE_SIZE = 10;

export interface SearchQuery {
  /** The query text as executed: `site:`/`-site:` operators removed (they are in the domain lists). */
  text: string;
  /** ISO 3166-1 alpha-2, upper-case (rule 1 resolved). */
  location: string;
  /** ISO 639-1, lower-case (rule 1 resolved). */
  language: string;
  /** Lower-case hosts; a result matches a host exactly or as a subdomain. */
  includeDomains: string[];
  excludeDomains: string[];
  domainType: DomainType;
  /** Only web/news: at most one of recencyMinutes or the date bounds (rules 2–4). */
  recencyMinutes?: number;
  /** YYYY-MM-DD, inclusive. */
  afterDate?: string;
  beforeDate?: string;
  /** Only research_paper. */
  pubYearMin?: number;
  pubYearMax?: number;
  /** 0 to 10. */
  page: number;
}

export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
  /** Domain of the result (spec 2.8 site_name). */
  siteName: string;
  /** YYYY-MM-DD when known (news, some web). */
  date?: string;
  publisher?: string;
  authors?: string[];
  venue?: string;
  year?: number;
  citedByCount?: number;
  pdfUrl?: string;
  /** The provider's own order (1 = best) or score; used to interleave providers. */
  rank: number;
}

export interface ProviderResult {
  hits: SearchHit[];
  /** The provider's estimate of all matches, when it gives one. */
  total?: number;
}

/** Thrown by a provider; the service logs it and degrades to the other providers. */
export class ProviderError extends Error {
  override name = "ProviderError";
  readonly provider: string;
  /** The upstream HTTP status, when it answered. */
  readonly status: number | undefined;
  constructor(provider: string, message: string, status?: number) {
    super(message);
    this.provider = provider;
    this.status = status;
  }
}

/** Who is searching: the local index shows an account the global documents and its own pages. */
export interface SearchViewer {
  accountId: string;
}

export interface SearchProvider {
  /** "local", "searxng", "brave", "openalex"; safe to log. */
  readonly name: string;
  /** Whether this provider serves this query at all (e.g. OpenAlex only research_paper). */
  supports(q: SearchQuery): boolean;
  /**
   * false: its answers are never reused from the search cache (the local index, whose pages an
   * account's own fetches and imports change from one request to the next, answers in a few ms).
   * Upstreams (absent, true) are cached: they are slow, rate-limited and metered.
   */
  readonly cacheable?: boolean;
  /**
   * Hits for page `q.page` (PAGE_SIZE per page). Throws ProviderError on upstream failures. The
   * service always passes the viewer; upstreams ignore it, the local index refuses to search
   * without it (it holds pages private to accounts).
   */
  search(q: SearchQuery, signal: AbortSignal, viewer?: SearchViewer): Promise<ProviderResult>;
}

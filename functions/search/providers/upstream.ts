import {
  PAGE_SIZE,
  ProviderError,
  type ProviderResult,
  type SearchHit,
  type SearchProvider,
  type SearchQuery,
} from "../types.ts";
import { asRecord, DEFAULT_TIMEOUT_MS, type FetchLike, getJson, type UpstreamRequest } from "./http.ts";
import { postFilter } from "./post-filter.ts";
import { hostOf, siteNameOf } from "./text.ts";

/**
 * What the upstream providers (SearXNG, Brave, OpenAlex) share: one GET of JSON per query, a results array
 * mapped record by record to hits ranked in the upstream's order, then our own post-filter (post-filter.ts)
 * and one page of hits. Each provider supplies only what is specific to its upstream's API (an UpstreamSpec).
 */

/** A hit before it is ranked: what a provider maps one upstream record to. */
export type UnrankedHit = Omit<SearchHit, "rank">;

/** Options every upstream provider takes. */
export interface UpstreamOptions {
  /** Per-request budget; default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  fetch?: FetchLike;
}

/** The part of an upstream provider specific to its API. */
export interface UpstreamSpec {
  /** Provider name: SearchProvider.name and ProviderError.provider. */
  name: string;
  supports: (q: SearchQuery) => boolean;
  /** The GET for a query: URL, headers, secrets to redact, redirect policy and status wording. */
  request: (q: SearchQuery, now: Date) => Omit<UpstreamRequest, "provider" | "timeoutMs" | "signal" | "fetch">;
  /**
   * Where the parsed body keeps its result records (`list`; anything but an array is an error) and the
   * upstream's estimate of all matches (`total`, left out when undefined).
   */
  results: (body: Record<string, unknown>, q: SearchQuery) => { list: unknown; total?: number | undefined };
  /** One upstream record as a hit; undefined skips it (no usable URL). */
  toHit: (raw: unknown, q: SearchQuery, now: Date) => UnrankedHit | undefined;
}

/**
 * A SearchProvider for an upstream JSON API. Per search: `now` is read once from the clock (default: the
 * current time) and serves the request, the hits' relative dates and the post-filter; every upstream failure
 * is a ProviderError (see getJson), as is a body without a results array ("<name> answered JSON without a
 * results array"). Hits keep the upstream's order as their rank (q.page * PAGE_SIZE + position, from 1) and
 * are post-filtered, at most PAGE_SIZE of them.
 */
export function createUpstreamProvider(spec: UpstreamSpec, opts: UpstreamOptions & { now?: () => Date }): SearchProvider {
  const { name } = spec;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clock = opts.now ?? (() => new Date());
  return {
    name,
    supports: spec.supports,
    async search(q: SearchQuery, signal: AbortSignal): Promise<ProviderResult> {
      const now = clock();
      const body = asRecord(await getJson({ ...spec.request(q, now), provider: name, timeoutMs, signal, fetch: opts.fetch }));
      const { list, total } = spec.results(body, q);
      if (!Array.isArray(list)) throw new ProviderError(name, `${name} answered JSON without a results array`);
      const hits = list
        .map((raw, i) => {
          const hit = spec.toHit(raw, q, now);
          return hit ? { ...hit, rank: q.page * PAGE_SIZE + i + 1 } : undefined;
        })
        .filter((hit): hit is SearchHit => hit !== undefined);
      return { hits: postFilter(hits, q, now).slice(0, PAGE_SIZE), ...(total !== undefined ? { total } : {}) };
    },
  };
}

/** `path` resolved under `base`, keeping the base's own path (a base without a trailing slash counts as a folder). */
export function endpointUrl(base: string, path: string): URL {
  return new URL(path, base.endsWith("/") ? base : `${base}/`);
}

/**
 * The fields every hit has: its URL, site name (spec 2.8), title (the site name when the upstream gives
 * none), snippet and, when known, date. Undefined when `url` is missing or not an http(s) URL.
 */
export function baseHit(
  url: string | undefined,
  fields: { title: string; snippet: string; date?: string | undefined },
): Pick<SearchHit, "url" | "title" | "snippet" | "siteName" | "date"> | undefined {
  const host = url ? hostOf(url) : undefined;
  if (!url || !host) return undefined;
  const siteName = siteNameOf(host);
  return {
    url,
    title: fields.title || siteName,
    snippet: fields.snippet,
    siteName,
    ...(fields.date ? { date: fields.date } : {}),
  };
}

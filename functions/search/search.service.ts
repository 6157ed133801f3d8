import { createHash } from "node:crypto";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import { type Page, toPage } from "../lib/pagination.ts";
import { waitAtMost } from "../lib/wait.ts";
import { type SearchUsageRow, searchCacheRepo, searchUsageRepo } from "../repos/search-usage.repo.ts";
import { hasEntitlement } from "../services/account.service.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import { type RateDecision, type RateLimitService, rateLimitService } from "../services/rate-limit.service.ts";
import { mergeResults } from "./merge.ts";
import type { SearchRequest, SearchResponse, SearchResultWire } from "./search.schemas.ts";
import {
  ProviderError,
  type ProviderResult,
  type SearchHit,
  type SearchProvider,
  type SearchQuery,
  type SearchViewer,
} from "./types.ts";

/** A stored usage row as the service hands it out. */
export type SearchUsageRecord = SearchUsageRow;

export const DEFAULT_CACHE_TTL_MS = 60_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 8_000;
const PURGE_EVERY = 200;

export interface SearchServiceDeps {
  db: Db;
  providers: SearchProvider[];
  clock: Clock;
  logger: Logger;
  /** Shared with the other surfaces; a private one over the same tables when omitted. */
  rateLimits?: RateLimitService;
  /** How long an answer is reused for the same normalised request; 0 disables the cache. */
  cacheTtlMs?: number;
  /** Each provider's deadline; on overrun that provider counts as failed. */
  providerTimeoutMs?: number;
  /**
   * Resolves once the pages the account has fetched are in the local index (IndexFeed.writtenFor):
   * a search waits for them, at most OWN_WRITES_WAIT_MS, so that it finds what the account has just
   * fetched. Absent where the fetch itself waits for the index (the edge).
   */
  ownWrites?: (accountId: string) => Promise<void>;
}

/** The longest a search waits for its account's pages to reach the local index. */
export const OWN_WRITES_WAIT_MS = 2_000;

export interface SearchCall {
  auth: AuthContext;
  requestId: string;
}

export interface SearchOutcome {
  body: SearchResponse;
  cached: boolean;
  rate: RateDecision;
}

/**
 * The cache key: the account and the executed request with its text case- and whitespace-folded
 * and the domain lists sorted. Only the cacheable providers' hits are kept under it (each by its
 * name); the local index is asked on every request (SearchProvider.cacheable).
 */
export function cacheKey(q: SearchQuery, viewer: SearchViewer): string {
  const norm = {
    v: viewer.accountId,
    t: q.text.toLowerCase().replace(/\s+/g, " ").trim(),
    l: q.location,
    g: q.language,
    i: [...q.includeDomains].sort(),
    e: [...q.excludeDomains].sort(),
    d: q.domainType,
    r: q.recencyMinutes ?? null,
    a: q.afterDate ?? null,
    b: q.beforeDate ?? null,
    y0: q.pubYearMin ?? null,
    y1: q.pubYearMax ?? null,
    p: q.page,
  };
  return createHash("sha256").update(JSON.stringify(norm)).digest("hex");
}

type Attempt = { ok: true; hits: SearchHit[] } | { ok: false; status: number | undefined };

/** A cache entry: the hits of each cacheable provider that answered, by provider name. */
interface CachedHits {
  hits: Record<string, SearchHit[]>;
}

const isCachedHits = (v: Record<string, unknown> | null): v is Record<string, unknown> & CachedHits =>
  v !== null && typeof v.hits === "object" && v.hits !== null && !Array.isArray(v.hits);

async function withTimeout(p: SearchProvider, q: SearchQuery, viewer: SearchViewer, ms: number): Promise<ProviderResult> {
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new ProviderError(p.name, `timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([p.search(q, ac.signal, viewer), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const briefResults = (results: SearchResultWire[]) =>
  results.map(({ position, site_name, snippet, title, url }) => ({ position, site_name, snippet, title, url }));

/**
 * GET {search_url} and its usage listing (spec 4.7, 2.9). Order of checks: Search API access (402),
 * the per-key searchRpm limit (429), the cache, then every provider that supports the query, in
 * parallel. A failing or slow provider is logged and left out; when every provider fails the answer
 * is 503 SERVICE_BUSY, or 403 FORBIDDEN when at least one of them was refused by its upstream (403).
 */
/** Seconds a 503 asks the caller to wait before retrying (spec 7.1: "retry with backoff"). */
export const SERVICE_BUSY_RETRY_AFTER_S = 5;

export function searchService(deps: SearchServiceDeps) {
  const usage = searchUsageRepo(deps.db);
  const cache = searchCacheRepo(deps.db);
  const rateLimits = deps.rateLimits ?? rateLimitService({ db: deps.db, clock: deps.clock });
  const ttl = deps.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const timeoutMs = deps.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  let puts = 0;

  async function attempt(p: SearchProvider, q: SearchQuery, viewer: SearchViewer): Promise<Attempt> {
    try {
      return { ok: true, hits: (await withTimeout(p, q, viewer, timeoutMs)).hits };
    } catch (err) {
      const status = err instanceof ProviderError ? err.status : undefined;
      const fields = { provider: p.name, status, error: err instanceof Error ? err.message : String(err) };
      if (err instanceof ProviderError) deps.logger.warn("search provider failed", fields);
      else deps.logger.error("search provider threw unexpectedly", fields);
      return { ok: false, status };
    }
  }

  /**
   * Every provider that supports the query, in parallel; a cacheable one's hits come from `cached`
   * when it holds them. `fresh` is what the cacheable providers answered now, `complete` whether
   * every cacheable provider asked now answered (a degraded answer is not stored).
   */
  async function fromProviders(
    chosen: SearchProvider[],
    q: SearchQuery,
    viewer: SearchViewer,
    cached: CachedHits | null,
  ): Promise<{ results: SearchResultWire[]; fresh: CachedHits; complete: boolean; fromCache: boolean }> {
    const reused = (p: SearchProvider) => {
      const hits = p.cacheable !== false ? cached?.hits[p.name] : undefined;
      return Array.isArray(hits) ? hits : undefined;
    };
    const attempts = await Promise.all(
      chosen.map((p): Promise<Attempt> | Attempt => {
        const hits = reused(p);
        return hits ? { ok: true, hits } : attempt(p, q, viewer);
      }),
    );
    const succeeded = attempts.filter((a) => a.ok);
    if (chosen.length > 0 && succeeded.length === 0) {
      if (attempts.some((a) => !a.ok && a.status === 403)) {
        throw new AppError("FORBIDDEN", "The upstream search service refused this search (403); it is not retryable as is.");
      }
      throw new AppError("SERVICE_BUSY", "No search provider could answer right now; retry with backoff.", {
        headers: { "Retry-After": String(SERVICE_BUSY_RETRY_AFTER_S) },
      });
    }
    const results = mergeResults(
      succeeded.map((a) => a.hits),
      q,
      deps.clock.now(),
    );
    const fresh: CachedHits = { hits: {} };
    let complete = true;
    let fromCache = false;
    chosen.forEach((p, i) => {
      if (p.cacheable === false) return;
      const a = attempts[i] as Attempt;
      if (reused(p)) fromCache = true;
      else if (a.ok) fresh.hits[p.name] = a.hits;
      else complete = false;
    });
    return { results, fresh, complete, fromCache };
  }

  async function remember(key: string, entry: CachedHits): Promise<void> {
    const now = deps.clock.now();
    await cache.put(key, { ...entry }, now, new Date(now.getTime() + ttl));
    if (++puts % PURGE_EVERY === 0) await cache.purgeExpired(now);
  }

  return {
    async search(req: SearchRequest, call: SearchCall): Promise<SearchOutcome> {
      if (!hasEntitlement(call.auth.account, "search_access")) {
        throw new AppError(
          "FORBIDDEN",
          'Search API access requires the "search_access" entitlement, which this account does not have.',
          { status: 402 },
        );
      }
      const rate = await rateLimits.consume(call.auth, "search");
      const q = req.search;
      const viewer: SearchViewer = { accountId: call.auth.account.id };
      const key = cacheKey(q, viewer);
      // Read your own writes: pages this account has just fetched are still being indexed.
      if (deps.ownWrites) await waitAtMost(deps.ownWrites(viewer.accountId), OWN_WRITES_WAIT_MS);
      const chosen = deps.providers.filter((p) => {
        try {
          return p.supports(q);
        } catch {
          return false;
        }
      });
      const caching = ttl > 0 && chosen.some((p) => p.cacheable !== false);
      const stored = caching ? await cache.get(key, deps.clock.now()) : null;
      // An entry of another shape (written before the cache kept hits by provider) is a miss.
      const answer = await fromProviders(chosen, q, viewer, isCachedHits(stored) ? stored : null);
      const { results, fromCache: hit } = answer;
      // Stored when every cacheable provider was asked now and answered: a degraded answer is not
      // reused (the next request asks the failed provider again), nor is a cached one's life extended.
      if (caching && !hit && answer.complete) await remember(key, answer.fresh);
      const body: SearchResponse = { query: q.text, results, total_results: results.length, page: q.page };
      await usage.insert({
        accountId: call.auth.account.id,
        keyId: call.auth.keyId,
        requestId: call.requestId,
        query: q.text,
        statusCode: 200,
        resultCount: results.length,
        results: briefResults(results),
        cached: hit,
        responseSizeBytes: Buffer.byteLength(JSON.stringify(body)),
        createdAt: deps.clock.now(),
      });
      return { body, cached: hit, rate };
    },

    /** A usage row for a request answered with an error (validation, access, limits, providers). */
    async recordFailure(call: SearchCall, f: { query: string; statusCode: number; responseSizeBytes: number }) {
      await usage
        .insert({
          accountId: call.auth.account.id,
          keyId: call.auth.keyId,
          requestId: call.requestId,
          query: f.query,
          statusCode: f.statusCode,
          resultCount: 0,
          results: [],
          cached: null,
          responseSizeBytes: f.responseSizeBytes,
          createdAt: deps.clock.now(),
        })
        .catch((err) => deps.logger.warn("search usage row not written", { error: err }));
    },

    async usage(
      accountId: string,
      q: { limit: number; page: number; status?: "completed" | "failed"; created_after?: Date; created_before?: Date },
    ): Promise<Page<SearchUsageRow>> {
      const { items, total } = await usage.list(
        accountId,
        { status: q.status, createdAfter: q.created_after, createdBefore: q.created_before },
        q,
      );
      return toPage(items, total, q);
    },
  };
}

export type SearchService = ReturnType<typeof searchService>;

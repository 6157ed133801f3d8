import type { Config } from "../config/config.ts";
import type { Db } from "../db/db.ts";
import type { Extractor } from "../extract/types.ts";
import type { Clock } from "../lib/clock.ts";
import type { IdGenerator } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import { checkUrl, type Resolver, resolvePublic } from "../net/address-policy.ts";
import { decodeHtml } from "../net/charset.ts";
import { safeFetch } from "../net/safe-http.ts";
import { fetchCacheRepo } from "../repos/fetch-cache.repo.ts";
import { fetchUsageRepo } from "../repos/fetch-usage.repo.ts";
import type { IndexFeed } from "../search/index-feed.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { fetchService } from "./fetch.service.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import { fetchUsageService } from "./fetch-usage.service.ts";
import type { Renderer } from "./renderer.ts";
import { responseCache } from "./response-cache.ts";

export interface FetchBuildInput {
  config: Pick<Config, "allowPrivateHosts" | "fetchNeverExpireHosts">;
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  renderer: Renderer;
  extractor: Extractor;
  /** Where cached response bodies are kept. */
  blobs: BlobStore;
  /** Tests resolve names to loopback through this; production uses the system resolver. */
  resolver?: Resolver;
  batchCeilingMs?: number;
  /**
   * The local search index's feed (search/index-feed.ts, over createLocalIndex().writer): every
   * successful fetch upserts its page after the response. Absent: nothing is indexed.
   */
  index?: IndexFeed;
  /** See FetchDeps.awaitIndex: the edge (Lambda) waits for its pages to be indexed. */
  awaitIndex?: boolean;
}

/** Wires the fetch API's adapters: the address policy and safe HTTP client, cache, usage, renderer, extractor. */
export function buildFetch(input: FetchBuildInput) {
  const allow = input.config.allowPrivateHosts;
  const deps: FetchDeps = {
    clock: input.clock,
    ids: input.ids,
    logger: input.logger,
    cache: responseCache(fetchCacheRepo(input.db), input.blobs, input.logger),
    usage: fetchUsageRepo(input.db),
    http: (url, o) => safeFetch(url, { ...o, allow, ...(input.resolver ? { resolver: input.resolver } : {}) }),
    checkUrl: (url) => checkUrl(url, allow),
    isAllowed: async (url) => {
      const checked = checkUrl(url, allow);
      if (!checked.ok) return false;
      const port = Number(checked.url.port) || (checked.url.protocol === "https:" ? 443 : 80);
      try {
        await resolvePublic(checked.url.hostname.replace(/^\[|\]$/g, ""), port, allow, input.resolver);
        return true;
      } catch {
        return false;
      }
    },
    renderer: input.renderer,
    extractor: input.extractor,
    decodeHtml,
    neverExpireHosts: input.config.fetchNeverExpireHosts,
    ...(input.index ? { index: input.index } : {}),
    ...(input.awaitIndex ? { awaitIndex: true } : {}),
  };
  return {
    fetch: fetchService(deps, input.batchCeilingMs === undefined ? {} : { batchCeilingMs: input.batchCeilingMs }),
    usage: fetchUsageService(deps.usage),
    cache: deps.cache,
  };
}

export type FetchApi = ReturnType<typeof buildFetch>;

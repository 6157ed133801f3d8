import type { Extractor } from "../extract/types.ts";
import type { Clock } from "../lib/clock.ts";
import type { IdGenerator } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import type { FetchUsageRepo } from "../repos/fetch-usage.repo.ts";
import type { IndexFeed } from "../search/index-feed.ts";
import type { HtmlDecoder, HttpFetch, UrlCheck } from "./ports.ts";
import type { Renderer } from "./renderer.ts";
import type { ResponseCache } from "./response-cache.ts";

/** Everything the fetch service works with, built once at start-up and passed in. */
export interface FetchDeps {
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  cache: ResponseCache;
  usage: FetchUsageRepo;
  http: HttpFetch;
  checkUrl: UrlCheck;
  /** The address policy for every request a rendering browser makes. */
  isAllowed: (url: string) => Promise<boolean>;
  renderer: Renderer;
  extractor: Extractor;
  decodeHtml: HtmlDecoder;
  /** Operator-pinned hosts whose cached entries never expire (spec 4.6 ttl). */
  neverExpireHosts: string[];
  /** The local search index's feed: successful fetches are offered to it after the response. */
  index?: IndexFeed;
  /**
   * Wait for this request's pages to be indexed before answering (bounded): on a platform that
   * freezes the process once the response is sent (AWS Lambda), work left for later is lost.
   */
  awaitIndex?: boolean;
}

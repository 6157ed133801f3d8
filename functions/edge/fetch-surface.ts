import { inlineExtractor } from "../extract/pool.ts";
import { buildFetch } from "../fetch/build.ts";
import { systemClock } from "../lib/clock.ts";
import { createIndexFeed } from "../search/index-feed.ts";
import { createLocalIndex } from "../search/local/local-index.ts";
import { fetchSurface } from "../surfaces/fetch/fetch.app.ts";
import type { EdgeSurfaceBuilder } from "./edge-root.ts";

/**
 * {fetch_url} on AWS Lambda, behind a function URL with response streaming (a 120 s batch outlives
 * API Gateway's 29 s cap). Pages that need scripts are rendered by the browser containers
 * (OSPREY_RENDERER_URL); extraction runs in the invocation's own thread, since a Lambda serves one
 * request at a time. Fetched pages feed the search index as on a server, but the response waits
 * for their upsert (bounded): work left for after the response is lost when Lambda freezes.
 */
export const buildFetchSurface: EdgeSurfaceBuilder = (root, options) => {
  const index = createLocalIndex({ db: root.database.db });
  const feed = createIndexFeed(index.writer, { logger: root.logger, sharePublicPages: root.config.search.sharePublicPages });
  return fetchSurface(
    buildFetch({
      config: root.config,
      db: root.database.db,
      clock: systemClock,
      ids: root.ids,
      logger: root.logger,
      renderer: root.renderer,
      extractor: inlineExtractor,
      blobs: root.blobs(),
      index: feed,
      awaitIndex: true,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    }),
    root.services.rateLimits,
  );
};

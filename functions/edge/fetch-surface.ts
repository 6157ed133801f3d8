import { inlineExtractor } from "../extract/pool.ts";
import { buildFetch } from "../fetch/build.ts";
import { systemClock } from "../lib/clock.ts";
import { fetchSurface } from "../surfaces/fetch/fetch.app.ts";
import type { EdgeSurfaceBuilder } from "./edge-root.ts";

/**
 * {fetch_url} on AWS Lambda, behind a function URL with response streaming (a 120 s batch outlives
 * API Gateway's 29 s cap). Pages that need scripts are rendered by the browser containers
 * (OSPREY_RENDERER_URL); extraction runs in the invocation's own thread, since a Lambda serves one
 * request at a time. Fetched pages are not fed to the search index here: that work would run after
 * the response, which a frozen Lambda drops (issue [1 of 6], Part A, makes it a queued job).
 */
export const buildFetchSurface: EdgeSurfaceBuilder = (root, options) =>
  fetchSurface(
    buildFetch({
      config: root.config,
      db: root.database.db,
      clock: systemClock,
      ids: root.ids,
      logger: root.logger,
      renderer: root.renderer,
      extractor: inlineExtractor,
      blobs: root.blobs(),
      ...(options.resolver ? { resolver: options.resolver } : {}),
    }),
    root.services.rateLimits,
  );

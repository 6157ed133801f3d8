import { systemClock } from "../lib/clock.ts";
import { createLocalIndex } from "../search/local/local-index.ts";
import { providersFromConfig } from "../search/providers/from-config.ts";
import { searchService } from "../search/search.service.ts";
import { searchSurface } from "../surfaces/search/search.app.ts";
import type { EdgeSurfaceBuilder } from "./edge-root.ts";

/** {search_url} on AWS Lambda: the local index in Postgres plus the configured upstreams. */
export const buildSearchSurface: EdgeSurfaceBuilder = (root) => {
  const { config } = root;
  if (!config.search.enabled) return searchSurface(null);
  const upstreams = providersFromConfig(config.search);
  const db = root.database.db;
  return searchSurface(
    searchService({
      db,
      clock: systemClock,
      logger: root.logger,
      rateLimits: root.services.rateLimits,
      providers: [createLocalIndex({ db }).provider, ...upstreams],
    }),
  );
};

import type { FetchApi } from "../../fetch/build.ts";
import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import type { RateLimitService } from "../../services/rate-limit.service.ts";
import { fetchHandlers } from "./fetch.handlers.ts";
import { fetchRoute, fetchUsageRoute } from "./fetch.routes.ts";

/** {fetch_url}: POST / and GET /usage (spec 4.6). Without a fetch API wired in, every path answers 404. */
export function fetchSurface(fetchApi: FetchApi | null, rateLimits: RateLimitService): Surface {
  const app = createRouter();
  if (fetchApi) {
    const h = fetchHandlers({ fetch: fetchApi.fetch, usage: fetchApi.usage, rateLimits });
    app.openapi(fetchRoute, h.fetch);
    app.openapi(fetchUsageRoute, h.usage);
  }
  return { name: "fetch", title: "fetch API", prefix: "/fetch", app, available: fetchApi !== null };
}

import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import { AppError } from "../../lib/app-error.ts";
import type { SearchService } from "../../search/search.service.ts";
import { searchHandlers } from "./search.handlers.ts";
import { searchRoute, searchUsageRoute } from "./search.routes.ts";

const NOT_AVAILABLE = "The search API is not available on this server.";

/**
 * {search_url}: GET / and GET /usage (spec 4.7). The routes are always documented; without a search
 * service (the operator has not enabled search) every path answers 404 NOT_FOUND "not available",
 * after authentication and before validation.
 */
export function searchSurface(service: SearchService | null): Surface {
  const app = createRouter();
  if (service) {
    const h = searchHandlers(service);
    app.use("/", h.recordFailures);
    app.openapi(searchRoute, h.search);
    app.openapi(searchUsageRoute, h.usage);
  } else {
    // Ahead of the validators (so GET / without a query is a 404 too); only on the two routes, so
    // the surface's own /openapi.json stays readable.
    const unavailable = () => {
      throw new AppError("NOT_FOUND", NOT_AVAILABLE);
    };
    for (const path of ["/", "/usage"]) app.use(path, unavailable);
    app.openapi(searchRoute, unavailable);
    app.openapi(searchUsageRoute, unavailable);
  }
  return { name: "search", title: "search API", prefix: "/search", app, available: service !== null };
}

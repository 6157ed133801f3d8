import type { RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import { toSearchRequest } from "../../search/search.schemas.ts";
import type { SearchService, SearchUsageRecord } from "../../search/search.service.ts";
import { rateLimitHeaders } from "../../services/rate-limit.service.ts";
import type { searchRoute, searchUsageRoute } from "./search.routes.ts";

/** Longest query text stored in a usage row of a failed request. */
const MAX_STORED_QUERY = 2000;

export function usageToWire(r: SearchUsageRecord) {
  return {
    id: r.id,
    request_id: r.requestId,
    query: r.query,
    status_code: r.statusCode,
    result_count: r.resultCount,
    results: r.results,
    cached: r.cached,
    response_size_bytes: r.responseSizeBytes,
    created_at: r.createdAt.toISOString(),
  };
}

export function searchHandlers(service: SearchService) {
  const search: RouteHandler<typeof searchRoute, AppEnv> = async (c) => {
    const out = await service.search(toSearchRequest(c.req.valid("query")), {
      auth: c.get("auth"),
      requestId: c.get("requestId"),
    });
    for (const [name, value] of Object.entries(rateLimitHeaders(out.rate))) c.header(name, value);
    return c.json(out.body, 200);
  };

  const usage: RouteHandler<typeof searchUsageRoute, AppEnv> = async (c) => {
    const page = await service.usage(c.get("auth").account.id, c.req.valid("query"));
    return c.json({ ...page, items: page.items.map(usageToWire) }, 200);
  };

  /** Every authenticated search answered with an error still gets its usage row (validation included). */
  const recordFailures: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    const auth = c.get("auth");
    if (!auth || c.res.status < 400) return;
    const size = (await c.res.clone().arrayBuffer()).byteLength;
    const query = (c.req.query("query") ?? "").slice(0, MAX_STORED_QUERY);
    await service.recordFailure(
      { auth, requestId: c.get("requestId") },
      { query, statusCode: c.res.status, responseSizeBytes: size },
    );
  };

  return { search, usage, recordFailures };
}

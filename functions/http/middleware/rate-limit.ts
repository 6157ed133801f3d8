import type { MiddlewareHandler } from "hono";
import { type RateBucket, type RateLimitService, rateLimitHeaders } from "../../services/rate-limit.service.ts";
import type { AppEnv } from "../app-env.ts";

/**
 * Per-key rate limit for a route (spec 8): consumes `cost` units of `bucket` for the caller and
 * sets X-RateLimit-* on the response; over the limit, 429 with Retry-After and X-RateLimit-Limit.
 * Routes whose cost depends on the validated body (fetch counts URLs) call the service from the
 * handler instead.
 */
export function rateLimit(
  limits: RateLimitService,
  bucket: RateBucket,
  cost: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => number = () => 1,
): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const decision = await limits.consume(c.get("auth"), bucket, cost(c));
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value);
  };
}

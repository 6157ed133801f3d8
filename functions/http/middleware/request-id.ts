import type { MiddlewareHandler } from "hono";
import type { IdGenerator } from "../../lib/ids.ts";
import type { AppEnv } from "../app-env.ts";

/**
 * Gives every request an id and sends it as X-Request-ID on every response, 2xx included. The id
 * is always generated here (never taken from the caller) because usage rows group by it.
 */
export function requestId(ids: IdGenerator): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const id = ids.request();
    c.set("requestId", id);
    c.header("X-Request-ID", id);
    await next();
    c.res.headers.set("X-Request-ID", id);
  };
}

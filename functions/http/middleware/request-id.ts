import type { MiddlewareHandler } from "hono";
import type { IdGenerator } from "../../lib/ids.ts";
import type { AppEnv } from "../app-env.ts";

/**
 * A caller's X-Request-ID is kept when it is 1–128 characters of [A-Za-z0-9._:-] (what tracing
 * headers and UUIDs use), so a client can find its own request in our logs and error bodies. Anything
 * else (empty, longer, spaces, quotes, control characters) could forge or break a log line, so it is
 * replaced by a generated id rather than refused.
 */
export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id and sends it as X-Request-ID on every response, 2xx included. Usage
 * rows record it: a client that reuses its ids groups its own rows (rows stay per account).
 */
export function requestId(ids: IdGenerator): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const given = c.req.header("x-request-id");
    const id = given !== undefined && CLIENT_REQUEST_ID.test(given) ? given : ids.request();
    c.set("requestId", id);
    c.header("X-Request-ID", id);
    await next();
    c.res.headers.set("X-Request-ID", id);
  };
}

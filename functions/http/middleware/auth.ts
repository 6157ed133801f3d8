import type { MiddlewareHandler } from "hono";
import type { ApiKeyService } from "../../services/api-key.service.ts";
import type { AppEnv } from "../app-env.ts";

/** Authenticates X-API-Key (spec 5) and puts the caller on the context as `auth`. */
export function requireApiKey(apiKeys: ApiKeyService, isPublic: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  return async function authMiddleware(c, next) {
    if (isPublic(c.req.path)) return next();
    c.set("auth", await apiKeys.authenticate(c.req.header("x-api-key")));
    await next();
  };
}

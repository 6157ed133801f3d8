import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import type { ProfileService } from "../../profiles/profile.service.ts";
import type {
  createProfileRoute,
  deleteProfileRoute,
  forgetProfileDomainRoute,
  getProfileRoute,
  listProfilesRoute,
  updateProfileRoute,
} from "./profiles.routes.ts";

export function profileHandlers(profiles: ProfileService) {
  const get: RouteHandler<typeof getProfileRoute, AppEnv> = async (c) =>
    c.json(await profiles.get(c.get("auth"), c.req.valid("param").profileId), 200);

  const list: RouteHandler<typeof listProfilesRoute, AppEnv> = async (c) =>
    c.json(await profiles.list(c.get("auth"), c.req.valid("query")), 200);

  const create: RouteHandler<typeof createProfileRoute, AppEnv> = async (c) =>
    c.json(await profiles.create(c.get("auth"), c.req.valid("json")), 201);

  const update: RouteHandler<typeof updateProfileRoute, AppEnv> = async (c) =>
    c.json(await profiles.update(c.get("auth"), c.req.valid("param").profileId, c.req.valid("json")), 200);

  const remove: RouteHandler<typeof deleteProfileRoute, AppEnv> = async (c) => {
    await profiles.remove(c.get("auth"), c.req.valid("param").profileId);
    return c.body(null, 204);
  };

  const forgetDomain: RouteHandler<typeof forgetProfileDomainRoute, AppEnv> = async (c) => {
    const { profileId, domain } = c.req.valid("param");
    await profiles.forgetDomain(c.get("auth"), profileId, domain);
    return c.body(null, 204);
  };

  return { get, list, create, update, remove, forgetDomain };
}

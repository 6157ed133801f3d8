import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import { AppError } from "../../lib/app-error.ts";
import type { ProfileService } from "../../profiles/profile.service.ts";
import type { SessionService } from "../../sessions/session.service.ts";
import type { cancelSetupRoute, saveSetupRoute, startSetupRoute } from "./profile-setup.routes.ts";
import { SetupSessionSchema } from "./profile-setup.routes.ts";

/** The setup-session routes over the profile service (ownership) and the browser session service (null: none here). */
export function profileSetupHandlers(profiles: ProfileService, sessions: SessionService | null) {
  const need = (): SessionService => {
    if (sessions) return sessions;
    throw new AppError(
      "FORBIDDEN",
      "This deployment serves no browser sessions here; create one at {browser_url} with profile_id (persist true writes it back to the profile when it ends).",
    );
  };

  const start: RouteHandler<typeof startSetupRoute, AppEnv> = async (c) => {
    const auth = c.get("auth");
    const { profileId } = c.req.valid("param");
    await profiles.get(auth, profileId); // 404 unless it is the caller's
    const s = need();
    const open = await s.openSetup(auth, profileId);
    if (open) return c.json(open, 200);
    // An absent body is the defaults (the route validated a present one).
    const body = SetupSessionSchema.parse((c.req.valid("json") as unknown) ?? {});
    return c.json(await s.create(auth, { ...body, profile_id: profileId }, { setupOf: profileId }), 201);
  };

  /** Ownership first (404), then the setup session's ending. */
  const finish = async (auth: AppEnv["Variables"]["auth"], profileId: string, save: boolean) => {
    await profiles.get(auth, profileId);
    return need().finishSetup(auth, profileId, save);
  };

  const save: RouteHandler<typeof saveSetupRoute, AppEnv> = async (c) =>
    c.json(await finish(c.get("auth"), c.req.valid("param").profileId, true), 200);
  const cancel: RouteHandler<typeof cancelSetupRoute, AppEnv> = async (c) =>
    c.json(await finish(c.get("auth"), c.req.valid("param").profileId, false), 200);
  return { start, save, cancel };
}

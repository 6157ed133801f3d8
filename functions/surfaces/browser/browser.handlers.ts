import { randomBytes } from "node:crypto";
import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import { livePage, livePageHeaders } from "../../http/live-page.ts";
import { CreateSessionSchema } from "../../sessions/session.schemas.ts";
import type { SessionService } from "../../sessions/session.service.ts";
import type {
  createSessionRoute,
  deleteSessionRoute,
  getSessionRoute,
  liveInputRoute,
  sessionUsageRoute,
  sessionUsageV1Route,
} from "./browser.routes.ts";

export function browserHandlers(sessions: SessionService) {
  const create: RouteHandler<typeof createSessionRoute, AppEnv> = async (c) => {
    // The body is optional: without one (or without a JSON content type) the validator passes
    // nothing, and the schema's defaults still apply.
    const body = CreateSessionSchema.parse(c.req.valid("json") ?? {});
    const session = await sessions.create(c.get("auth"), body);
    return c.json(session, 201);
  };

  const get: RouteHandler<typeof getSessionRoute, AppEnv> = async (c) => {
    return c.json(await sessions.get(c.get("auth"), c.req.valid("param").sessionId), 200);
  };

  const remove: RouteHandler<typeof deleteSessionRoute, AppEnv> = async (c) => {
    await sessions.end(c.get("auth"), c.req.valid("param").sessionId);
    return c.body(null, 204);
  };

  const usage: RouteHandler<typeof sessionUsageRoute | typeof sessionUsageV1Route, AppEnv> = async (c) => {
    const q = c.req.valid("query");
    const page = await sessions.usage(
      c.get("auth"),
      { sessionId: q.session_id, startAfter: q.start_after, endBefore: q.end_before, status: q.status },
      { limit: q.limit, page: q.page },
    );
    return c.json(page, 200);
  };

  /** The live view's input (the page's token is the credential; see liveInputRoute). */
  const liveInput: RouteHandler<typeof liveInputRoute, AppEnv> = async (c) => {
    await sessions.liveInput(c.req.valid("param").token, c.req.valid("json"));
    c.header("cache-control", "no-store");
    return c.body(null, 204);
  };

  return { create, get, remove, usage, liveInput };
}

/**
 * live_view_url: /live/{token}, the run live view's page over the session's active tab (a frame is
 * taken when the page asks for one), with the controls a person needs to log in: the page posts
 * clicks, wheel, text, keys and navigation to /live/{token}/input. It answers only while the session
 * is open (the input route is registered with the others, in browser.app.ts). A run's live view
 * (surfaces/agent/live.ts) has no input.
 */
export function mountSessionLiveView(app: OpenAPIHono<AppEnv>, sessions: SessionService): void {
  app.get("/live/:token", async (c) => {
    const row = await sessions.liveSession(c.req.param("token"));
    const nonce = randomBytes(16).toString("base64");
    for (const [name, value] of Object.entries(livePageHeaders(nonce))) c.header(name, value);
    return c.html(livePage(`Osprey live view · ${row.id}`, "The session's browser", nonce, { controls: true }));
  });
  app.get("/live/:token/state", async (c) => {
    const row = await sessions.liveSession(c.req.param("token")).catch(() => null);
    c.header("cache-control", "no-store");
    // An ended session's page stops polling on finished: true rather than erroring.
    return c.json({ session_id: row?.id ?? null, status: row?.status ?? "ended", finished: row === null, purpose: "" });
  });
  app.get("/live/:token/frame", async (c) => {
    const frame = await sessions.liveFrame(c.req.param("token"));
    return c.body(new Uint8Array(frame), 200, { "content-type": "image/jpeg", "cache-control": "no-store" });
  });
}

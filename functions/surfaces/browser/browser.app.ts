import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import type { SessionService } from "../../sessions/session.service.ts";
import { browserHandlers, mountSessionLiveView } from "./browser.handlers.ts";
import {
  createSessionRoute,
  deleteSessionRoute,
  getSessionRoute,
  liveInputRoute,
  sessionUsageRoute,
  sessionUsageV1Route,
} from "./browser.routes.ts";

/**
 * {browser_url}: sessions and their usage (spec 4.5, 2.4). Without a session service (no Chromium,
 * OSPREY_BROWSER_SESSIONS=off, or a platform that cannot hold a websocket) every path answers 404.
 * The CDP websocket itself (`/{id}/cdp`) is an upgrade the session host serves beside this router.
 */
export function browserSurface(sessions: SessionService | null): Surface {
  const app = createRouter();
  if (sessions) {
    const h = browserHandlers(sessions);
    // The usage paths first: "usage" would otherwise be taken for a session id.
    app.openapi(sessionUsageRoute, h.usage);
    app.openapi(sessionUsageV1Route, h.usage);
    app.openapi(createSessionRoute, h.create);
    app.openapi(getSessionRoute, h.get);
    app.openapi(deleteSessionRoute, h.remove);
    app.openapi(liveInputRoute, h.liveInput);
    mountSessionLiveView(app, sessions);
  }
  return {
    name: "browser",
    title: "browser session API",
    prefix: "/browser",
    app,
    available: sessions !== null,
    // The live view's token is its credential (like a run's STREAMING_URL).
    publicPathPrefixes: ["/live/"],
  };
}

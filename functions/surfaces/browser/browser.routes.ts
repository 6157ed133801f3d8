import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody } from "../../http/openapi.ts";
import { pageSchema } from "../../lib/pagination.ts";
import { LIVE_INPUT_LIMITS, LIVE_KEYS, LiveInputSchema, LiveTokenParam } from "../../sessions/live-input.schemas.ts";
import {
  CreateSessionSchema,
  SessionIdParam,
  SessionSchema,
  SessionUsageItemSchema,
  SessionUsageQuery,
} from "../../sessions/session.schemas.ts";

const LIMITS_TEXT =
  "Open sessions per account: free 1, payg 3, starter 5, pro 10; creations per minute per API key: free 5, payg 10, starter 30, pro 60 (429 RATE_LIMIT_EXCEEDED with Retry-After).";

export const createSessionRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["browser"],
  summary: "Create a remote browser session",
  description: [
    "Starts a Chromium of your own (one process per session, never shared and never reused) and answers with `cdp_url`:",
    "pass it to `puppeteer.connect({ browserWSEndpoint })` or `chromium.connectOverCDP()`. The URL's token is the credential;",
    "a client that cannot keep it secret may connect to the URL without `?token=` and send `X-API-Key` instead.",
    "Every request the browser sends goes through Osprey's egress proxy: private, loopback and metadata addresses are refused",
    "(the page sees a network error), and the bytes are counted on the usage record.",
    "The body is optional: `{}` gives a light session with the defaults. The session ends on DELETE, when the client calls",
    "`Browser.close` (puppeteer's `browser.close()`), after `inactivity_timeout_seconds` with no client connected and no CDP",
    "traffic, or at `expires_at`. CDP methods that would reach outside the session (`Browser.crash`, `Target.exposeDevToolsProtocol`,",
    "`Target.setRemoteLocations`, downloads to disk, a context with its own proxy) are answered with a CDP error.",
    LIMITS_TEXT,
    "503 SERVICE_BUSY (with Retry-After) when this server has no browser free.",
  ].join(" "),
  request: {
    body: { ...jsonBody(CreateSessionSchema), required: false },
  },
  responses: {
    201: { description: "The session, ready for a CDP client.", content: { "application/json": { schema: SessionSchema } } },
    ...errorResponses(400, 403, 404, 429, 503),
  },
});

export const getSessionRoute = createRoute({
  method: "get",
  path: "/{sessionId}",
  tags: ["browser"],
  summary: "A browser session",
  description: "The session as it stands, with its byte counts so far. Another account's session is 404.",
  request: { params: SessionIdParam },
  responses: {
    200: { description: "The session.", content: { "application/json": { schema: SessionSchema } } },
    ...errorResponses(404),
  },
});

export const deleteSessionRoute = createRoute({
  method: "delete",
  path: "/{sessionId}",
  tags: ["browser"],
  summary: "End a browser session",
  description:
    "Spec 3.2: the browser is closed at once and the usage record written; 204 also when the session had already ended. 404 only for an id this account never had.",
  request: { params: SessionIdParam },
  responses: {
    204: { description: "Ended (or already ended)." },
    ...errorResponses(404),
  },
});

const usageRoute = (path: string, summary: string) =>
  createRoute({
    method: "get",
    path,
    tags: ["browser"],
    summary,
    description:
      "Spec 2.4 and 4.5: one record per session, newest first, for the calling key's account and scope. Bytes come from the session's egress proxy; duration_ms is set once a session has ended.",
    request: { query: SessionUsageQuery },
    responses: {
      200: {
        description: "A page of usage records.",
        content: { "application/json": { schema: pageSchema(SessionUsageItemSchema, "BrowserSessionUsagePage") } },
      },
      ...errorResponses(400),
    },
  });

export const sessionUsageRoute = usageRoute("/usage", "Browser session usage history");
export const sessionUsageV1Route = usageRoute("/v1/browser/usage", "Browser session usage history (versioned path)");

/** The live view's token is its credential: no X-API-Key, so no 401. */
const { 401: _noKey, ...liveInputErrors } = errorResponses(400, 404, 429, 503);

export const liveInputRoute = createRoute({
  method: "post",
  path: "/live/{token}/input",
  tags: ["browser"],
  summary: "Send a person's input to a session's live view",
  description: [
    "What the page at `live_view_url` sends when a person clicks, scrolls, types or navigates in it (a profile's setup",
    "session is logged into this way). The token in the path is the credential, as for the page and its frames: no",
    "X-API-Key. Each event goes to the session's active tab, the one the frames show. Coordinates are CSS pixels of the",
    "page's viewport, which is the frame image's own pixel grid (sessions render at device scale factor 1): a page that",
    "shows the frame scaled maps a point by `x = offsetX × naturalWidth / shownWidth` (the same for y).",
    "`click`: mouse move, press and release (`click_count` 2 for the second click of a double click). `scroll`: one wheel",
    `event at (x, y). \`type\`: the text inserted at the focused element (1 to ${LIVE_INPUT_LIMITS.textMax} characters).`,
    `\`key\`: one of ${LIVE_KEYS.join(", ")}, pressed and released with the usual key codes, optionally with modifiers.`,
    "`navigate`: http(s) only (another scheme, credentials in the URL or a private address literal: 400); the browser's",
    "traffic still goes through the session's egress proxy and its address policy, so a name that resolves to a refused",
    "address shows the browser's error page. With no tab open, navigate opens one. `history`: back, forward or reload",
    "(back with nothing behind does nothing).",
    "204 once the browser took the event (a navigation may still be loading; the next frames show it). Input counts as",
    "the session's activity: its inactivity timeout starts again. 404 for an unknown token, a session that ended, or",
    `no tab to take a click or key. 429 past ${LIVE_INPUT_LIMITS.eventsPerSecond} events a second on one live view`,
    "(with Retry-After). 503 when the container holding the session cannot be reached.",
  ].join(" "),
  security: [],
  request: { params: LiveTokenParam, body: jsonBody(LiveInputSchema) },
  responses: {
    204: { description: "The browser took the event." },
    ...liveInputErrors,
  },
});

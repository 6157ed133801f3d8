import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/openapi.ts";
import { ProfileIdParam } from "../../profiles/profile.schemas.ts";
import { CreateSessionSchema, SessionSchema } from "../../sessions/session.schemas.ts";

/**
 * A profile's setup session (issue [4 of 6], "not shown" in the spec; Browserbase contexts and
 * Browser Use profiles work this way): a browser session on the profile that a person drives
 * through its live view (or a script through its cdp_url) to log in once; save writes what the
 * browser holds to the profile and ends it, cancel ends it and writes nothing.
 */

export const SetupSessionSchema = CreateSessionSchema.pick({
  mode: true,
  timeout_seconds: true,
  inactivity_timeout_seconds: true,
  viewport: true,
}).openapi("ProfileSetupSessionRequest");

const json = <T>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

const UNAVAILABLE =
  "403 FORBIDDEN where this deployment serves no browser sessions beside the profile API (the cloud's {agent_url}): there, create a session at {browser_url} with profile_id (persist true saves it when it ends).";

export const startSetupRoute = createRoute({
  method: "post",
  path: "/v1/profiles/{profileId}/setup-session",
  tags: ["agent"],
  summary: "Open a setup session on a profile",
  description: `Starts a browser session on the profile (its cookies and localStorage loaded, its fingerprint and exit country) and answers it with its live_view_url, which a person opens to log in to the sites the profile is for; cdp_url drives it from code. Nothing is written to the profile until POST …/setup-session/save; the session's timeout or …/cancel ends it without saving. One setup session per profile: while one is open, this answers it again with 200 instead of starting another (201). The body is optional (mode, timeout_seconds, inactivity_timeout_seconds, viewport as for a browser session). 404 for a profile that is not the caller's; 429 when the account has as many open browser sessions as its plan allows; 503 when no browser is free. ${UNAVAILABLE}`,
  request: {
    params: ProfileIdParam,
    body: { required: false, content: { "application/json": { schema: SetupSessionSchema } } },
  },
  responses: {
    200: json(SessionSchema, "The setup session already open on this profile."),
    201: json(SessionSchema, "The new setup session."),
    ...errorResponses(400, 403, 404, 429, 503),
  },
});

const finishRoute = (what: "save" | "cancel") =>
  createRoute({
    method: "post",
    path: `/v1/profiles/{profileId}/setup-session/${what}`,
    tags: ["agent"],
    summary: what === "save" ? "Save a profile's setup session" : "Cancel a profile's setup session",
    description:
      what === "save"
        ? `Writes the setup session's cookies and localStorage to the profile (the domains that changed, recorded as written by the session), then ends the session (end_reason profile_saved). Answers the ended session. 404 when the profile is not the caller's or has no open setup session; 503 when its browser cannot be reached (retry). ${UNAVAILABLE}`
        : `Ends the setup session without writing anything to the profile (end_reason setup_cancelled). Answers the ended session. 404 when the profile is not the caller's or has no open setup session. ${UNAVAILABLE}`,
    request: { params: ProfileIdParam },
    responses: { 200: json(SessionSchema, "The ended setup session."), ...errorResponses(400, 403, 404, 503) },
  });

export const saveSetupRoute = finishRoute("save");
export const cancelSetupRoute = finishRoute("cancel");

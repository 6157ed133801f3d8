import { createRoute } from "@hono/zod-openapi";
import { PROXY_COUNTRIES } from "../../config/config-browser.ts";
import { errorResponses, jsonBody } from "../../http/openapi.ts";
import { PaginationQuery, pageSchema } from "../../lib/pagination.ts";
import {
  CreateProfileSchema,
  PROFILE_LIMITS,
  ProfileDomainParam,
  ProfileIdParam,
  ProfileSchema,
  UpdateProfileSchema,
} from "../../profiles/profile.schemas.ts";

const SCOPE = "Profiles belong to the API key's account: another account's profile is 404 NOT_FOUND, as an unknown id.";

/** How a profile's state is kept and shared between runs: the part of the contract a caller needs. */
const STATE_TEXT = [
  "A profile keeps, per registrable domain, the browser's cookies (every attribute, partitioned ones included) and",
  "localStorage per origin, sealed at rest with the vault key; IndexedDB, Cache Storage and service workers are not kept.",
  "Runs (`use_profile`, `profile_id`) and browser sessions (`profile_id`) start from it and write back the domains they changed.",
  "Two at once on one profile: per-domain last-writer-wins. A save replaces only the domains it changed, each domain whole",
  "and atomically, all of one save at once; so a domain never holds a mix of two runs' states, and the domains a run did not",
  "change keep what another run wrote.",
].join(" ");

const json = <T>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

export const getProfileRoute = createRoute({
  method: "get",
  path: "/v1/profiles/{profileId}",
  tags: ["agent"],
  summary: "Get a browser context profile",
  description: `Spec 2.3 and 4.4: the profile with its domains, sorted by domain, each with its cookie and localStorage-origin counts, when it was last visited and written, and by which run (or browser session). Never a cookie or storage value. ${SCOPE} ${STATE_TEXT}`,
  request: { params: ProfileIdParam },
  responses: { 200: json(ProfileSchema, "The profile."), ...errorResponses(400, 404) },
});

export const listProfilesRoute = createRoute({
  method: "get",
  path: "/v1/profiles",
  tags: ["agent"],
  summary: "List browser context profiles",
  description: `The account's profiles, newest first, each as GET /v1/profiles/{profileId} shows it, with the shared pagination (limit 1 to 1000, default 100; page ≥ 1). ${SCOPE}`,
  request: { query: PaginationQuery },
  responses: { 200: json(pageSchema(ProfileSchema, "BrowserContextProfilePage"), "A page of profiles."), ...errorResponses(400) },
});

export const createProfileRoute = createRoute({
  method: "post",
  path: "/v1/profiles",
  tags: ["agent"],
  summary: "Create a browser context profile",
  description: [
    "An empty profile: runs and sessions on it fill it. `name` 1 to 100 characters (trimmed);",
    `\`proxy_country_code\` one of ${PROXY_COUNTRIES.join(", ")} or null (runs and sessions on the profile exit there);`,
    "`is_default` true makes it the account's default (what `use_profile: true` without `profile_id` loads), taking that from",
    "the former default in the same step, so an account has at most one; `fingerprint_seed` fixes the browser's fingerprint",
    "(1 to 128 characters of A-Z, a-z, 0-9, _ and -; default: random), so a site sees the same device every time, and never changes.",
    `An account keeps at most ${PROFILE_LIMITS.maxPerAccount} profiles: one more is 403 FORBIDDEN (delete one first).`,
    "Unknown fields, a bad country, name or seed: 400 INVALID_INPUT with details.",
  ].join(" "),
  request: { body: jsonBody(CreateProfileSchema) },
  responses: { 201: json(ProfileSchema, "The new profile."), ...errorResponses(400, 403) },
});

export const updateProfileRoute = createRoute({
  method: "patch",
  path: "/v1/profiles/{profileId}",
  tags: ["agent"],
  summary: "Rename a profile, set its country or make it the default",
  description: [
    "Fields left out stay as they are. `proxy_country_code: null` clears the country. `is_default: true` makes it the default",
    "(the former default stops being one, in the same step); `is_default: false` on the default leaves the account with none.",
    "`fingerprint_seed` is immutable (400 INVALID_INPUT): create another profile for another device.",
    `Unknown fields are 400. ${SCOPE}`,
  ].join(" "),
  request: { params: ProfileIdParam, body: jsonBody(UpdateProfileSchema) },
  responses: { 200: json(ProfileSchema, "The profile after the change."), ...errorResponses(400, 404) },
});

export const deleteProfileRoute = createRoute({
  method: "delete",
  path: "/v1/profiles/{profileId}",
  tags: ["agent"],
  summary: "Delete a browser context profile",
  description: `Deletes the profile and every domain's saved state. Deleting the default leaves the account with none. A run or session still on it saves nothing at its end. A second DELETE is 404. ${SCOPE}`,
  request: { params: ProfileIdParam },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const forgetProfileDomainRoute = createRoute({
  method: "delete",
  path: "/v1/profiles/{profileId}/domains/{domain}",
  tags: ["agent"],
  summary: "Forget one site of a profile",
  description: `Deletes the saved cookies and localStorage of one registrable domain: \`domain\` may be any host of it (login.example.co.uk forgets example.co.uk). 404 when the profile has no state for it. The next run on the profile starts logged out of that site. ${SCOPE}`,
  request: { params: ProfileDomainParam },
  responses: { 204: { description: "Forgotten." }, ...errorResponses(400, 404) },
});

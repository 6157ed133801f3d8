import { createRoute, z } from "@hono/zod-openapi";
import { API_KEY_SCOPES } from "../../../schema/api-keys.ts";
import { ENTITLEMENTS, PLANS } from "../../../schema/plans.ts";
import { errorResponses } from "../../http/openapi.ts";
import { PaginationQuery, pageSchema } from "../../lib/pagination.ts";

export const AccountSchema = z
  .object({
    id: z.string().openapi({ example: "acct_01jd8q3x6f4b2c9e1h7k5m3n8p" }),
    name: z.string().nullable(),
    plan: z.enum(PLANS),
    entitlements: z
      .array(z.enum(ENTITLEMENTS))
      .openapi({ description: "Effective entitlements: plan defaults plus operator grants, minus revocations." }),
    limits: z.object({
      search_rpm: z.number().int().openapi({ description: "Search requests per minute per API key." }),
      fetch_upm: z.number().int().openapi({ description: "Fetch URLs per minute per API key." }),
      max_pending_runs: z.number().int().openapi({ description: "Runs that may be pending at once." }),
      max_browser_sessions: z.number().int().openapi({ description: "Browser sessions that may be open at once." }),
      browser_sessions_per_minute: z
        .number()
        .int()
        .openapi({ description: "Browser sessions that may be created per minute per API key." }),
    }),
    credit_balance: z.number().int(),
    created_at: z.string().datetime(),
  })
  .openapi("Account");

export const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: "key_01jd8q3x6f4b2c9e1h7k5m3n8p" }),
    prefix: z.string().openapi({ description: "The first characters of the key, for recognising it.", example: "osk_3fQ9xA2b" }),
    name: z.string().nullable(),
    scope: z.enum(API_KEY_SCOPES),
    sub_user_id: z.string().nullable(),
    created_at: z.string().datetime(),
    last_used_at: z.string().datetime().nullable().openapi({ description: "Updated at most once a minute." }),
    expires_at: z.string().datetime().nullable(),
    revoked_at: z.string().datetime().nullable(),
  })
  .openapi("ApiKey");

export const getAccountRoute = createRoute({
  method: "get",
  path: "/v1/account",
  tags: ["agent"],
  summary: "The calling key's account",
  description: "Plan, effective entitlements, limits and credit balance of the account that owns the API key.",
  responses: {
    200: { description: "The account.", content: { "application/json": { schema: AccountSchema } } },
    ...errorResponses(),
  },
});

export const listApiKeysRoute = createRoute({
  method: "get",
  path: "/v1/api-keys",
  tags: ["agent"],
  summary: "API keys of the calling account",
  description: "Newest first. Secrets are never returned: only each key's display prefix.",
  request: { query: PaginationQuery },
  responses: {
    200: { description: "A page of keys.", content: { "application/json": { schema: pageSchema(ApiKeySchema, "ApiKeyPage") } } },
    ...errorResponses(400),
  },
});

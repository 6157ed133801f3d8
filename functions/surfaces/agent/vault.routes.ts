import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/openapi.ts";
import { VaultItemsSchema, VaultSyncSchema } from "../../vault/vault.schemas.ts";

export const syncVaultRoute = createRoute({
  method: "post",
  path: "/v1/vault/items/sync",
  tags: ["agent"],
  summary: "Sync vault items from the connected password providers",
  description: [
    "Spec 4.3. No body. Pulls every connection's items (the built-in Osprey vault, 1Password Connect, Bitwarden)",
    "and answers the account's items with what changed. Values never leave the providers through this API.",
    "401 UNAUTHORIZED when a provider refuses its connection's token (expired or revoked; the message names the",
    "connection; connections before it are synced). A provider that cannot be reached keeps its items as they were",
    "and is listed in `failed_connections` (200).",
  ].join(" "),
  responses: {
    200: {
      description: "The items after the sync, and what changed.",
      content: { "application/json": { schema: VaultSyncSchema } },
    },
    ...errorResponses(),
  },
});

export const listVaultItemsRoute = createRoute({
  method: "get",
  path: "/v1/vault/items",
  tags: ["agent"],
  summary: "List vault items",
  description:
    "Spec 4.3. Every item of every connection of the account, as last synced (built-in items at once), ordered by label. Values are never returned. No parameters; an account without connections has none (200, empty).",
  responses: {
    200: { description: "The items.", content: { "application/json": { schema: VaultItemsSchema } } },
    ...errorResponses(),
  },
});

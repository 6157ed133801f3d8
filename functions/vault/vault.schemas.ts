import { z } from "@hono/zod-openapi";

/** Spec 2.2: a vault item as the API shows it. Field values (secrets) are never returned. */
export const VaultItemSchema = z
  .object({
    itemId: z.string().openapi({
      description: "cred:<connection_id>:<vault_name>:<item_id>: the value runs take in credential_item_ids.",
      example: "cred:vc_01jd8q3x6f0000000000000000:Personal:7x2kq9",
    }),
    connectionId: z.string(),
    label: z.string(),
    vaultName: z.string(),
    domains: z.array(z.string()).openapi({ description: "Registrable domains the item may be filled on (and only there)." }),
    fieldMetadata: z
      .array(
        z.object({
          fieldId: z.string(),
          label: z.string(),
          type: z.string().openapi({ description: "STRING, CONCEALED, EMAIL, URL, OTP, … (the provider's type)." }),
        }),
      )
      .openapi({ description: "The item's fields, without their values." }),
    hasTotp: z.boolean().openapi({ description: "Whether a one-time-password secret is attached." }),
    enabled: z.boolean().openapi({ description: "Disabled items are listed but never offered to runs." }),
  })
  .openapi("VaultItem");

export const VaultItemsSchema = z.object({ items: z.array(VaultItemSchema) }).openapi("VaultItems");

export const VaultSyncSchema = z
  .object({
    items: z.array(VaultItemSchema),
    sync_summary: z.object({
      added: z.number().int().min(0),
      updated: z.number().int().min(0),
      removed: z.number().int().min(0),
    }),
    failed_connections: z.array(z.object({ connectionId: z.string(), message: z.string() })).openapi({
      description:
        "Connections whose provider could not be reached this time: their items are kept as they were. (A provider that refuses its token fails the whole request with 401 UNAUTHORIZED instead.)",
    }),
  })
  .openapi("VaultSync");

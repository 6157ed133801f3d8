import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const VAULT_PROVIDERS = ["osprey", "onepassword", "bitwarden"] as const;
export type VaultProviderKind = (typeof VAULT_PROVIDERS)[number];

/** One field of an item as the API shows it (spec 2.2 fieldMetadata): never its value. */
export interface VaultFieldMeta {
  fieldId: string;
  label: string;
  /** STRING, CONCEALED, EMAIL, URL, OTP, … (the provider's type, upper-cased). */
  type: string;
}

/**
 * A password provider an account connected (spec 2.2 connectionId): the built-in `osprey` vault,
 * a 1Password Connect server or a Bitwarden `bw serve`. An external provider's access token is
 * kept encrypted (functions/vault/crypto.ts); its URL is not a secret.
 */
export const vaultConnections = pgTable(
  "vault_connections",
  {
    /** `vc_…`: the connection_id inside item ids (cred:<connection_id>:<vault_name>:<item_id>). */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: VAULT_PROVIDERS }).notNull(),
    name: text("name").notNull(),
    /** The provider's base URL (1Password Connect, bw serve); null for the built-in vault. */
    url: text("url"),
    /** The provider's token, encrypted; null for the built-in vault. */
    tokenCiphertext: text("token_ciphertext"),
    lastSyncedAt: ts("last_synced_at"),
    /** Why the last sync failed (no secret in it), or null. */
    lastError: text("last_error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("vault_connections_account_idx").on(t.accountId),
    check("vault_connections_provider_check", sql`${t.provider} in ('osprey', 'onepassword', 'bitwarden')`),
  ],
);

/**
 * A credential item (spec 2.2). For every provider the row holds what the API shows (label,
 * domains, field metadata, hasTotp) and whether runs may use it. Only the built-in vault keeps
 * values here, encrypted in `secretCiphertext` (the fields' values and the TOTP seed); items of an
 * external provider are read from it when a run fills a field, and `secretCiphertext` stays null.
 */
export const vaultItems = pgTable(
  "vault_items",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => vaultConnections.id, { onDelete: "cascade" }),
    vaultName: text("vault_name").notNull(),
    /** The provider's own id of the item (the built-in vault makes one). */
    itemId: text("item_id").notNull(),
    label: text("label").notNull(),
    domains: text("domains").array().notNull().default(sql`'{}'::text[]`),
    fieldMetadata: jsonb("field_metadata").$type<VaultFieldMeta[]>().notNull(),
    hasTotp: boolean("has_totp").notNull().default(false),
    /** Disabled items are listed but never offered to runs. */
    enabled: boolean("enabled").notNull().default(true),
    secretCiphertext: text("secret_ciphertext"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("vault_items_ref_idx").on(t.connectionId, t.vaultName, t.itemId),
    index("vault_items_account_idx").on(t.accountId),
  ],
);

export type VaultConnectionRow = typeof vaultConnections.$inferSelect;
export type NewVaultConnectionRow = typeof vaultConnections.$inferInsert;
export type VaultItemRow = typeof vaultItems.$inferSelect;
export type NewVaultItemRow = typeof vaultItems.$inferInsert;

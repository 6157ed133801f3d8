import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { API_KEY_SCOPES } from "../api-keys.ts";
import { accounts } from "./accounts.ts";

export { API_KEY_SCOPES, type ApiKeyScope } from "../api-keys.ts";

/**
 * API keys. The secret itself is never stored: only its SHA-256 (looked up through a unique
 * index, so a check costs one indexed read whatever the key) and a short display prefix.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** Hex SHA-256 of the whole key. */
    keyHash: text("key_hash").notNull(),
    /** The first characters of the key (e.g. `osk_3fQ9xA2b`), safe to show in listings. */
    prefix: text("prefix").notNull(),
    name: text("name"),
    /** `api` keys serve REST and CLI callers, `mcp` keys the MCP server; their runs are kept apart. */
    scope: text("scope", { enum: API_KEY_SCOPES }).notNull().default("api"),
    subUserId: text("sub_user_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_idx").on(t.keyHash),
    index("api_keys_account_id_idx").on(t.accountId),
    index("api_keys_prefix_idx").on(t.prefix),
    check("api_keys_scope_check", sql`${t.scope} in ('api', 'mcp')`),
  ],
);

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

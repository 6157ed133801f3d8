import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { PLANS } from "../plans.ts";

/** One customer. API keys, runs and usage rows all belong to an account. */
export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    plan: text("plan", { enum: PLANS }).notNull(),
    /** Entitlements an operator added on top of the plan's defaults. */
    entitlementsGranted: text("entitlements_granted").array().notNull().default(sql`'{}'::text[]`),
    /** Plan-default entitlements an operator took away from this account. */
    entitlementsRevoked: text("entitlements_revoked").array().notNull().default(sql`'{}'::text[]`),
    creditBalance: bigint("credit_balance", { mode: "number" }).notNull().default(0),
    /** Operator-set limits; null means the plan's default (schema/plans.ts). */
    searchRpm: integer("search_rpm"),
    fetchUpm: integer("fetch_upm"),
    maxPendingRuns: integer("max_pending_runs"),
    /** A suspended account's keys authenticate to 401 UNAUTHORIZED (spec 5.5). */
    suspendedAt: timestamp("suspended_at", { withTimezone: true, mode: "date" }),
    /** Standard Webhooks signing secret (`whsec_` + base64); made on first use, rotated by the CLI. */
    webhookSecret: text("webhook_secret"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    check("accounts_plan_check", sql`${t.plan} in ('free', 'payg', 'starter', 'pro')`),
    check("accounts_credit_balance_check", sql`${t.creditBalance} >= 0`),
    check("accounts_search_rpm_check", sql`${t.searchRpm} is null or ${t.searchRpm} > 0`),
    check("accounts_fetch_upm_check", sql`${t.fetchUpm} is null or ${t.fetchUpm} > 0`),
    check("accounts_max_pending_runs_check", sql`${t.maxPendingRuns} is null or ${t.maxPendingRuns} > 0`),
  ],
);

export type AccountRow = typeof accounts.$inferSelect;
export type NewAccountRow = typeof accounts.$inferInsert;

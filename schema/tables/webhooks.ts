import { sql } from "drizzle-orm";
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";
import { runs } from "./runs.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * The webhook outbox (spec 6.2): one row per terminal run with a webhook_url, written in the same
 * transaction as the terminal status. `id` is the Standard Webhooks `webhook-id`, stable across retries.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** run.completed, run.failed or run.cancelled. */
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** pending → delivered | failed. */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
    /** A dispatcher's claim on the row while it sends (so two dispatchers never send one attempt twice). */
    lockedUntil: ts("locked_until"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending', 'delivered', 'failed')`),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_run_idx").on(t.runId),
  ],
);

/** Every delivery attempt, kept for inspection (spec 6.2 "every attempt recorded"). */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** The receiver's HTTP status, when it answered. */
    statusCode: integer("status_code"),
    /** acknowledged, retry or failed. */
    outcome: text("outcome").notNull(),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { RunError } from "../runs.ts";
import { accounts } from "./accounts.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** One automation run (spec 2.1). `request` is the validated 4.1 body (it holds no secrets). */
export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    /** api or mcp: run ids of one scope are invisible to keys of the other (spec 7.1, 404). */
    keyScope: text("key_scope").notNull(),
    subUserId: text("sub_user_id"),
    entry: text("entry").notNull(),
    batchId: text("batch_id"),
    status: text("status").notNull(),
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    result: jsonb("result"),
    error: jsonb("error").$type<RunError>(),
    steps: integer("steps").notNull().default(0),
    creditsUsed: integer("credits_used").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    /** Times a worker started this run (a crash-recovery retry counts). */
    attempts: integer("attempts").notNull().default(0),
    /** Set before the first action on the page: from then on a crashed attempt is not retried. */
    actedAt: ts("acted_at"),
    cancelRequestedAt: ts("cancel_requested_at"),
    /** Unguessable token of the live view URL (STREAMING_URL). */
    liveToken: text("live_token"),
    workerId: text("worker_id"),
    /**
     * The owning worker's heartbeat while RUNNING: the run row, not the queue message, says who
     * owns a run. A delivery of a RUNNING run whose heartbeat is fresh is a duplicate and is dropped;
     * a stale one means the owner died.
     */
    heartbeatAt: ts("heartbeat_at"),
    /** When its queue message was last sent (the orphan sweep re-sends long-PENDING runs). */
    enqueuedAt: ts("enqueued_at").defaultNow(),
    createdAt: ts("created_at").notNull().defaultNow(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    check("runs_status_check", sql`${t.status} in ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')`),
    check("runs_entry_check", sql`${t.entry} in ('run', 'async', 'sse', 'batch')`),
    index("runs_account_created_idx").on(t.accountId, t.createdAt),
    index("runs_account_open_idx").on(t.accountId).where(sql`${t.status} in ('PENDING', 'RUNNING')`),
    index("runs_batch_idx").on(t.batchId),
    uniqueIndex("runs_live_token_idx").on(t.liveToken),
  ],
);

/** Stored SSE events of a run (spec 6.1), in order; HEARTBEAT is never stored. */
export const runEvents = pgTable(
  "run_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("run_events_run_idx").on(t.runId, t.id)],
);

/** One agent step: what the model meant, what was done, what came of it, and its artifacts' keys. */
export const runSteps = pgTable(
  "run_steps",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    purpose: text("purpose").notNull(),
    action: jsonb("action").$type<{ name: string; args: Record<string, unknown> }>().notNull(),
    ok: boolean("ok").notNull(),
    message: text("message").notNull(),
    url: text("url").notNull(),
    title: text("title").notNull().default(""),
    screenshotKey: text("screenshot_key"),
    htmlKey: text("html_key"),
    elementsKey: text("elements_key"),
    modelMs: integer("model_ms").notNull().default(0),
    actionMs: integer("action_ms").notNull().default(0),
    captureMs: integer("capture_ms").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.step] })],
);

/**
 * The embedded queue (ARCHITECTURE.md: single machine): claimed with FOR UPDATE SKIP LOCKED under a
 * lease the consumer extends (heartbeat); a message received `max_receives` times is dead-lettered.
 */
export const queueMessages = pgTable(
  "queue_messages",
  {
    id: text("id").primaryKey(),
    queue: text("queue").notNull(),
    body: jsonb("body").notNull(),
    availableAt: ts("available_at").notNull().defaultNow(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ts("lease_expires_at"),
    receiveCount: integer("receive_count").notNull().default(0),
    /** Set when dead-lettered (no longer delivered); kept for inspection. */
    deadAt: ts("dead_at"),
    deadReason: text("dead_reason"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("queue_messages_ready_idx").on(t.queue, t.availableAt).where(sql`${t.deadAt} is null`)],
);

import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Fixed-window request counters, one row per (API key, bucket, window start). Kept in the
 * database so every server process (and every Lambda) shares them; the increment is a single
 * conditional upsert, which PGlite, Postgres and Neon all run atomically.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    keyId: text("key_id").notNull(),
    bucket: text("bucket").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.bucket, t.windowStart] })],
);

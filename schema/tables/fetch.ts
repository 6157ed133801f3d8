import { sql } from "drizzle-orm";
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

/**
 * Raw origin responses, one per URL, shared by every caller: one entry serves every format and
 * selector (spec 4.6 rule 7). Validators (ETag, Last-Modified) are stripped before storing: the
 * service keeps none (spec 4.6 rule 2); conditional requests always go to the origin.
 */
export const fetchCache = pgTable(
  "fetch_cache",
  {
    /** The requested URL, normalised (no fragment). */
    urlKey: text("url_key").primaryKey(),
    finalUrl: text("final_url").notNull(),
    status: integer("status").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull(),
    /** The body lives in the blob store (files locally, S3 in the cloud) under this content key. */
    bodyKey: text("body_key").notNull(),
    bodySize: integer("body_size").notNull(),
    /** True when `body` is the DOM Chromium rendered, not the origin's bytes. */
    rendered: boolean("rendered").notNull().default(false),
    fetchedAt: timestamp("fetched_at", { withTimezone: true, mode: "date" }).notNull(),
    /** The origin's cache lifetime in seconds (Cache-Control s-maxage/max-age, Expires); null if none. */
    originMaxAge: integer("origin_max_age"),
  },
  (t) => [index("fetch_cache_fetched_at_idx").on(t.fetchedAt), index("fetch_cache_body_key_idx").on(t.bodyKey)],
);

export const FETCH_USAGE_STATUSES = ["completed", "failed"] as const;

/** One row per fetched URL (spec 2.7, 3.3). The extracted text itself is not kept. */
export const fetchUsage = pgTable(
  "fetch_usage",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    requestId: text("request_id"),
    url: text("url").notNull(),
    finalUrl: text("final_url").notNull(),
    title: text("title"),
    description: text("description"),
    language: text("language"),
    author: text("author"),
    publishedDate: text("published_date"),
    format: text("format", { enum: ["markdown", "html", "json"] }).notNull(),
    status: text("status", { enum: FETCH_USAGE_STATUSES }).notNull(),
    requestOrigin: text("request_origin").notNull(),
    textLength: integer("text_length"),
    linksCount: integer("links_count").notNull().default(0),
    imageLinksCount: integer("image_links_count").notNull().default(0),
    latencyMs: doublePrecision("latency_ms"),
    notModified: boolean("not_modified").notNull().default(false),
    etag: text("etag"),
    lastModified: text("last_modified"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    index("fetch_usage_account_created_idx").on(t.accountId, t.createdAt),
    check("fetch_usage_status_check", sql`${t.status} in ('completed', 'failed')`),
  ],
);

export type FetchCacheRow = typeof fetchCache.$inferSelect;
export type FetchUsageRow = typeof fetchUsage.$inferSelect;
export type NewFetchUsageRow = typeof fetchUsage.$inferInsert;

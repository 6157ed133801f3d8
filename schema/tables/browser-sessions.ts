import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const BROWSER_SESSION_STATUSES = ["created", "running", "ended"] as const;
export type BrowserSessionStatus = (typeof BROWSER_SESSION_STATUSES)[number];

export const BROWSER_SESSION_MODES = ["light", "stealth", "svc-browser"] as const;
export type BrowserSessionMode = (typeof BROWSER_SESSION_MODES)[number];

/**
 * One remote browser session (spec 2.4, 3.2): the row is both the session and its usage record.
 * created → running (a CDP client connected) → ended (DELETE, timeouts, the browser died). The
 * byte counters come from the session's egress proxy and are written while it runs and when it ends.
 */
export const browserSessions = pgTable(
  "browser_sessions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    /** api or mcp: sessions of one scope are invisible to keys of the other, as runs are. */
    keyScope: text("key_scope").notNull(),
    subUserId: text("sub_user_id"),
    mode: text("mode", { enum: BROWSER_SESSION_MODES }).notNull(),
    status: text("status", { enum: BROWSER_SESSION_STATUSES }).notNull(),
    /**
     * The creation options as accepted (timeouts, viewport, proxy country or "custom", seed). A
     * custom proxy's URL is not kept here: it may carry credentials.
     */
    options: jsonb("options").$type<Record<string, unknown>>().notNull(),
    /** Bearer credential of the CDP and live-view URLs (32 base62 characters); worthless once ended. */
    connectToken: text("connect_token").notNull(),
    /** The process holding the browser (its host id): where a CDP connection must be routed. */
    hostId: text("host_id").notNull(),
    /**
     * Where other hosts reach the holder (http://<private address>:<port>, OSPREY_BROWSER_HOST_URL),
     * so a CDP connection or live-view frame arriving at another browser container is forwarded
     * there; null in single-machine mode (one host).
     */
    hostUrl: text("host_url"),
    startTime: ts("start_time").notNull(),
    endTime: ts("end_time"),
    /** created + timeout_seconds: the hard cap. */
    expiresAt: ts("expires_at").notNull(),
    durationMs: bigint("duration_ms", { mode: "number" }),
    proxyRxBytes: bigint("proxy_trg_rx_bytes", { mode: "number" }),
    proxyTxBytes: bigint("proxy_trg_tx_bytes", { mode: "number" }),
    /** Why it ended: deleted, browser_close, timeout, inactivity, browser_exited, host_stopped, host_lost. */
    endReason: text("end_reason"),
    /** CDP clients that connected over the session's life. */
    connections: integer("connections").notNull().default(0),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("browser_sessions_account_created_idx").on(t.accountId, t.createdAt),
    index("browser_sessions_open_idx").on(t.accountId).where(sql`${t.status} <> 'ended'`),
    index("browser_sessions_token_idx").on(t.connectToken),
    check("browser_sessions_status_check", sql`${t.status} in ('created', 'running', 'ended')`),
    check("browser_sessions_mode_check", sql`${t.mode} in ('light', 'stealth', 'svc-browser')`),
  ],
);

export type BrowserSessionRow = typeof browserSessions.$inferSelect;
export type NewBrowserSessionRow = typeof browserSessions.$inferInsert;

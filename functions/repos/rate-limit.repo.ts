import { and, eq, lt, sql } from "drizzle-orm";
import { rateLimitCounters } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

/** Per-key fixed-window counters (schema/tables/rate-limits.ts). */
export function rateLimitRepo(db: Db) {
  return {
    /**
     * Adds `cost` to the window's counter only if the result stays within `limit`, in one
     * statement. Returns the new count, or null when the increment would exceed the limit (the
     * counter is then left unchanged, so refused requests do not use up the window).
     */
    async tryConsume(keyId: string, bucket: string, windowStart: Date, cost: number, limit: number): Promise<number | null> {
      if (cost > limit) return null;
      const rows = await db
        .insert(rateLimitCounters)
        .values({ keyId, bucket, windowStart, count: cost })
        .onConflictDoUpdate({
          target: [rateLimitCounters.keyId, rateLimitCounters.bucket, rateLimitCounters.windowStart],
          set: { count: sql`${rateLimitCounters.count} + ${cost}` },
          setWhere: sql`${rateLimitCounters.count} + ${cost} <= ${limit}`,
        })
        .returning({ count: rateLimitCounters.count });
      return rows[0]?.count ?? null;
    },

    /** Gives back `cost` to a window (a request refused after it was counted); never below zero. */
    async release(keyId: string, bucket: string, windowStart: Date, cost: number): Promise<void> {
      await db
        .update(rateLimitCounters)
        .set({ count: sql`greatest(0, ${rateLimitCounters.count} - ${cost})` })
        .where(
          and(
            eq(rateLimitCounters.keyId, keyId),
            eq(rateLimitCounters.bucket, bucket),
            eq(rateLimitCounters.windowStart, windowStart),
          ),
        );
    },

    async current(keyId: string, bucket: string, windowStart: Date): Promise<number> {
      const [row] = await db
        .select({ count: rateLimitCounters.count })
        .from(rateLimitCounters)
        .where(
          and(
            eq(rateLimitCounters.keyId, keyId),
            eq(rateLimitCounters.bucket, bucket),
            eq(rateLimitCounters.windowStart, windowStart),
          ),
        );
      return row?.count ?? 0;
    },

    /** Deletes windows that ended before `before`. */
    async purgeBefore(before: Date): Promise<number> {
      const rows = await db
        .delete(rateLimitCounters)
        .where(lt(rateLimitCounters.windowStart, before))
        .returning({ keyId: rateLimitCounters.keyId });
      return rows.length;
    },
  };
}

export type RateLimitRepo = ReturnType<typeof rateLimitRepo>;

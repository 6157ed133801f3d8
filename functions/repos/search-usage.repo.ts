import { and, count, desc, eq, gt, gte, lt, lte, not, type SQL } from "drizzle-orm";
import { searchCache, searchUsage } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type SearchUsageRow = typeof searchUsage.$inferSelect;
export type NewSearchUsageRow = typeof searchUsage.$inferInsert;

export interface SearchUsageFilter {
  createdAfter?: Date;
  createdBefore?: Date;
  /** completed: a 2xx status_code; failed: any other. */
  status?: "completed" | "failed";
}

/** Search usage rows (spec 2.9); every read is scoped to one account. */
export function searchUsageRepo(db: Db) {
  return {
    async insert(row: NewSearchUsageRow): Promise<void> {
      await db.insert(searchUsage).values(row);
    },

    async list(
      accountId: string,
      filter: SearchUsageFilter,
      page: PageRequest,
    ): Promise<{ items: SearchUsageRow[]; total: number }> {
      const conditions: SQL[] = [eq(searchUsage.accountId, accountId)];
      if (filter.createdAfter) conditions.push(gt(searchUsage.createdAt, filter.createdAfter));
      if (filter.createdBefore) conditions.push(lt(searchUsage.createdAt, filter.createdBefore));
      const ok = and(gte(searchUsage.statusCode, 200), lte(searchUsage.statusCode, 299)) as SQL;
      if (filter.status === "completed") conditions.push(ok);
      if (filter.status === "failed") conditions.push(not(ok));
      const where = and(...conditions);
      const items = await db
        .select()
        .from(searchUsage)
        .where(where)
        .orderBy(desc(searchUsage.createdAt), desc(searchUsage.id))
        .limit(page.limit)
        .offset(pageOffset(page));
      const [total] = await db.select({ n: count() }).from(searchUsage).where(where);
      return { items, total: total?.n ?? 0 };
    },
  };
}

export type SearchUsageRepo = ReturnType<typeof searchUsageRepo>;

/** The short-lived search result cache, keyed by the normalised request. */
export function searchCacheRepo(db: Db) {
  return {
    async get(key: string, now: Date): Promise<Record<string, unknown> | null> {
      const [row] = await db
        .select({ response: searchCache.response })
        .from(searchCache)
        .where(and(eq(searchCache.key, key), gt(searchCache.expiresAt, now)))
        .limit(1);
      return row?.response ?? null;
    },

    async put(key: string, response: Record<string, unknown>, now: Date, expiresAt: Date): Promise<void> {
      await db
        .insert(searchCache)
        .values({ key, response, createdAt: now, expiresAt })
        .onConflictDoUpdate({ target: searchCache.key, set: { response, createdAt: now, expiresAt } });
    },

    async purgeExpired(now: Date): Promise<void> {
      await db.delete(searchCache).where(lte(searchCache.expiresAt, now));
    },
  };
}

export type SearchCacheRepo = ReturnType<typeof searchCacheRepo>;

import { and, count, desc, eq, gt, lt, type SQL } from "drizzle-orm";
import { type FetchUsageRow, fetchUsage, type NewFetchUsageRow } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type { FetchUsageRow, NewFetchUsageRow };

export interface FetchUsageFilter {
  startAfter?: Date;
  endBefore?: Date;
  status?: "completed" | "failed";
}

/** Fetch usage rows (spec 2.7); every read is scoped to one account. */
export function fetchUsageRepo(db: Db) {
  return {
    async insertMany(rows: NewFetchUsageRow[]): Promise<void> {
      if (rows.length > 0) await db.insert(fetchUsage).values(rows);
    },

    async list(
      accountId: string,
      filter: FetchUsageFilter,
      page: PageRequest,
    ): Promise<{ items: FetchUsageRow[]; total: number }> {
      const conditions: SQL[] = [eq(fetchUsage.accountId, accountId)];
      if (filter.startAfter) conditions.push(gt(fetchUsage.createdAt, filter.startAfter));
      if (filter.endBefore) conditions.push(lt(fetchUsage.createdAt, filter.endBefore));
      if (filter.status) conditions.push(eq(fetchUsage.status, filter.status));
      const where = and(...conditions);
      const items = await db
        .select()
        .from(fetchUsage)
        .where(where)
        .orderBy(desc(fetchUsage.createdAt), desc(fetchUsage.id))
        .limit(page.limit)
        .offset(pageOffset(page));
      const [total] = await db.select({ n: count() }).from(fetchUsage).where(where);
      return { items, total: total?.n ?? 0 };
    },
  };
}

export type FetchUsageRepo = ReturnType<typeof fetchUsageRepo>;

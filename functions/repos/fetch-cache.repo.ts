import { count, eq, lt } from "drizzle-orm";
import { type FetchCacheRow, fetchCache } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

export type { FetchCacheRow };

/** Rows of the shared raw-response cache (schema/tables/fetch.ts); bodies live in the blob store. */
export function fetchCacheRepo(db: Db) {
  return {
    async get(urlKey: string): Promise<FetchCacheRow | null> {
      const [row] = await db.select().from(fetchCache).where(eq(fetchCache.urlKey, urlKey));
      return row ?? null;
    },

    /** Insert or replace the entry of a URL (last fetch wins). */
    async put(row: FetchCacheRow): Promise<void> {
      const { urlKey: _key, ...rest } = row;
      await db.insert(fetchCache).values(row).onConflictDoUpdate({ target: fetchCache.urlKey, set: rest });
    },

    /** Deletes entries fetched before `before`; returns the body keys they used. */
    async deleteFetchedBefore(before: Date): Promise<string[]> {
      const rows = await db.delete(fetchCache).where(lt(fetchCache.fetchedAt, before)).returning({ bodyKey: fetchCache.bodyKey });
      return [...new Set(rows.map((r) => r.bodyKey))];
    },

    async isBodyReferenced(bodyKey: string): Promise<boolean> {
      const [row] = await db.select({ n: count() }).from(fetchCache).where(eq(fetchCache.bodyKey, bodyKey));
      return (row?.n ?? 0) > 0;
    },
  };
}

export type FetchCacheRepo = ReturnType<typeof fetchCacheRepo>;

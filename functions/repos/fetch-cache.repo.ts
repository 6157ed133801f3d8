import { eq, lt } from "drizzle-orm";
import { type FetchCacheRow, fetchCache } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

export type { FetchCacheRow };

/** The shared raw-response cache of the fetch API (schema/tables/fetch.ts). */
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

    async purgeFetchedBefore(before: Date): Promise<number> {
      const rows = await db.delete(fetchCache).where(lt(fetchCache.fetchedAt, before)).returning({ k: fetchCache.urlKey });
      return rows.length;
    },
  };
}

export type FetchCacheRepo = ReturnType<typeof fetchCacheRepo>;

import type { Logger } from "../lib/logger.ts";
import type { FetchCacheRepo } from "../repos/fetch-cache.repo.ts";
import { type BlobStore, contentKey } from "../storage/blob-store.ts";

export interface CachedResponse {
  urlKey: string;
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  rendered: boolean;
  fetchedAt: Date;
  originMaxAge: number | null;
}

/**
 * The raw-response cache: the row (status, headers, times) in the database, the body in the blob
 * store under its content hash. The blob is written before the row, so a row never names a
 * missing body; a row whose blob is gone anyway reads as a miss.
 */
export function responseCache(repo: FetchCacheRepo, blobs: BlobStore, logger: Logger) {
  return {
    async get(urlKey: string): Promise<CachedResponse | null> {
      const row = await repo.get(urlKey);
      if (!row) return null;
      const body = await blobs.get(row.bodyKey);
      if (!body) return null;
      const { bodyKey: _k, bodySize: _s, ...rest } = row;
      return { ...rest, body };
    },

    async put(entry: CachedResponse): Promise<void> {
      const bodyKey = contentKey(entry.body);
      await blobs.put(bodyKey, entry.body);
      const { body, ...rest } = entry;
      await repo.put({ ...rest, bodyKey, bodySize: body.length });
    },

    /** Drops entries fetched before `before` and the bodies no other entry uses. */
    async purge(before: Date): Promise<number> {
      const keys = await repo.deleteFetchedBefore(before);
      for (const key of keys) {
        if (!(await repo.isBodyReferenced(key)))
          await blobs.delete(key).catch((err) => logger.warn("blob delete failed", { key, error: err }));
      }
      return keys.length;
    },
  };
}

export type ResponseCache = ReturnType<typeof responseCache>;

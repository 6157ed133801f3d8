import { type Page, toPage } from "../lib/pagination.ts";
import type { FetchUsageRepo, FetchUsageRow } from "../repos/fetch-usage.repo.ts";

/** A stored usage row as services hand it out. */
export type FetchUsageRecord = FetchUsageRow;

export function fetchUsageService(repo: FetchUsageRepo) {
  return {
    async list(
      accountId: string,
      q: { limit: number; page: number; start_after?: Date; end_before?: Date; status?: "completed" | "failed" },
    ): Promise<Page<FetchUsageRow>> {
      const { items, total } = await repo.list(
        accountId,
        { startAfter: q.start_after, endBefore: q.end_before, status: q.status },
        q,
      );
      return toPage(items, total, q);
    },
  };
}

export type FetchUsageService = ReturnType<typeof fetchUsageService>;

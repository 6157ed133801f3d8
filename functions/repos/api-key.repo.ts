import { and, count, desc, eq, isNull, lt, or } from "drizzle-orm";
import { type AccountRow, type ApiKeyRow, accounts, apiKeys, type NewApiKeyRow } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type { ApiKeyRow };

/** API keys. Every read other than the authentication lookup is scoped to one account. */
export function apiKeyRepo(db: Db) {
  return {
    async insert(row: NewApiKeyRow): Promise<ApiKeyRow> {
      const [created] = await db.insert(apiKeys).values(row).returning();
      if (!created) throw new Error("api key insert returned no row");
      return created;
    },

    /** The authentication lookup: one read through the unique hash index, with the owning account. */
    async findByHash(keyHash: string): Promise<{ key: ApiKeyRow; account: AccountRow } | null> {
      const [row] = await db
        .select({ key: apiKeys, account: accounts })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(eq(apiKeys.keyHash, keyHash));
      return row ?? null;
    },

    async listForAccount(accountId: string, page: PageRequest): Promise<{ items: ApiKeyRow[]; total: number }> {
      const where = eq(apiKeys.accountId, accountId);
      const items = await db
        .select()
        .from(apiKeys)
        .where(where)
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .limit(page.limit)
        .offset(pageOffset(page));
      const [total] = await db.select({ n: count() }).from(apiKeys).where(where);
      return { items, total: total?.n ?? 0 };
    },

    /** Operator listing across accounts (CLI), optionally for one account. */
    async listAll(accountId?: string): Promise<ApiKeyRow[]> {
      const q = db.select().from(apiKeys);
      const rows = accountId ? await q.where(eq(apiKeys.accountId, accountId)) : await q;
      return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    },

    /** Keys whose id or display prefix equals `idOrPrefix` (a prefix may, rarely, be shared). */
    async findByIdOrPrefix(idOrPrefix: string): Promise<ApiKeyRow[]> {
      return db
        .select()
        .from(apiKeys)
        .where(or(eq(apiKeys.id, idOrPrefix), eq(apiKeys.prefix, idOrPrefix)));
    },

    async revoke(id: string, at: Date): Promise<ApiKeyRow | null> {
      const [row] = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning();
      return row ?? null;
    },

    /** Records use, at most once per `granularityMs`, so a busy key does not write on every request. */
    async touchLastUsed(id: string, at: Date, granularityMs: number): Promise<void> {
      await db
        .update(apiKeys)
        .set({ lastUsedAt: at })
        .where(
          and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(at.getTime() - granularityMs)))),
        );
    },
  };
}

export type ApiKeyRepo = ReturnType<typeof apiKeyRepo>;

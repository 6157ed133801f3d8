import { asc, count, eq, sql } from "drizzle-orm";
import type { Plan } from "../../schema/plans.ts";
import { type AccountRow, accounts, type NewAccountRow } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

export type { AccountRow };

export interface LimitsPatch {
  searchRpm?: number | null;
  fetchUpm?: number | null;
  maxPendingRuns?: number | null;
}

/** Accounts. Operator actions (CLI) and authentication read and write them through here. */
export function accountRepo(db: Db) {
  return {
    async insert(row: NewAccountRow): Promise<AccountRow> {
      const [created] = await db.insert(accounts).values(row).returning();
      if (!created) throw new Error("account insert returned no row");
      return created;
    },

    async get(id: string): Promise<AccountRow | null> {
      const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
      return row ?? null;
    },

    async list(): Promise<AccountRow[]> {
      return db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id));
    },

    async count(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(accounts);
      return row?.n ?? 0;
    },

    async setPlan(id: string, plan: Plan): Promise<AccountRow | null> {
      const [row] = await db.update(accounts).set({ plan, updatedAt: sql`now()` }).where(eq(accounts.id, id)).returning();
      return row ?? null;
    },

    async setEntitlementOverrides(id: string, granted: string[], revoked: string[]): Promise<AccountRow | null> {
      const [row] = await db
        .update(accounts)
        .set({ entitlementsGranted: granted, entitlementsRevoked: revoked, updatedAt: sql`now()` })
        .where(eq(accounts.id, id))
        .returning();
      return row ?? null;
    },

    /** Adds `delta` (may be negative) to the balance atomically; a balance never goes below zero. */
    async addCredits(id: string, delta: number): Promise<AccountRow | null> {
      const [row] = await db
        .update(accounts)
        .set({ creditBalance: sql`greatest(0, ${accounts.creditBalance} + ${delta})`, updatedAt: sql`now()` })
        .where(eq(accounts.id, id))
        .returning();
      return row ?? null;
    },

    async setCredits(id: string, balance: number): Promise<AccountRow | null> {
      const [row] = await db
        .update(accounts)
        .set({ creditBalance: balance, updatedAt: sql`now()` })
        .where(eq(accounts.id, id))
        .returning();
      return row ?? null;
    },

    async setLimits(id: string, patch: LimitsPatch): Promise<AccountRow | null> {
      const [row] = await db
        .update(accounts)
        .set({ ...patch, updatedAt: sql`now()` })
        .where(eq(accounts.id, id))
        .returning();
      return row ?? null;
    },

    async setSuspended(id: string, at: Date | null): Promise<AccountRow | null> {
      const [row] = await db
        .update(accounts)
        .set({ suspendedAt: at, updatedAt: sql`now()` })
        .where(eq(accounts.id, id))
        .returning();
      return row ?? null;
    },
  };
}

export type AccountRepo = ReturnType<typeof accountRepo>;

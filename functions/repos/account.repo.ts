import { asc, count, eq, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Plan } from "../../schema/plans.ts";
import { type AccountRow, accounts, type NewAccountRow } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

export type { AccountRow };

type AccountPatch = PgUpdateSetSource<typeof accounts>;

export interface LimitsPatch {
  searchRpm?: number | null;
  fetchUpm?: number | null;
  maxPendingRuns?: number | null;
}

/** Accounts. Operator actions (CLI) and authentication read and write them through here. */
export function accountRepo(db: Db) {
  /** One account's columns changed, updated_at bumped; null when the account does not exist. */
  async function update(id: string, set: AccountPatch): Promise<AccountRow | null> {
    const [row] = await db
      .update(accounts)
      .set({ ...set, updatedAt: sql`now()` })
      .where(eq(accounts.id, id))
      .returning();
    return row ?? null;
  }

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

    setPlan: (id: string, plan: Plan) => update(id, { plan }),

    setEntitlementOverrides: (id: string, granted: string[], revoked: string[]) =>
      update(id, { entitlementsGranted: granted, entitlementsRevoked: revoked }),

    /** Adds `delta` (may be negative) to the balance atomically; a balance never goes below zero. */
    addCredits: (id: string, delta: number) =>
      update(id, { creditBalance: sql`greatest(0, ${accounts.creditBalance} + ${delta})` }),

    setCredits: (id: string, balance: number) => update(id, { creditBalance: balance }),

    setLimits: (id: string, patch: LimitsPatch) => update(id, patch),

    setSuspended: (id: string, at: Date | null) => update(id, { suspendedAt: at }),
  };
}

export type AccountRepo = ReturnType<typeof accountRepo>;

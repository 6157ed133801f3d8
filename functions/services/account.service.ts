import {
  ENTITLEMENTS,
  type Entitlement,
  effectiveEntitlements,
  effectiveLimits,
  type Plan,
  type PlanLimits,
} from "../../schema/plans.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import type { IdGenerator } from "../lib/ids.ts";
import { type AccountRow, accountRepo, type LimitsPatch } from "../repos/account.repo.ts";

/** An account as the rest of the code sees it: overrides already folded into effective values. */
export interface AccountView {
  id: string;
  name: string | null;
  plan: Plan;
  entitlements: Entitlement[];
  /** Operator overrides, kept apart so operators can see what differs from the plan. */
  entitlementOverrides: { granted: string[]; revoked: string[] };
  limits: PlanLimits;
  customLimits: { searchRpm: number | null; fetchUpm: number | null; maxPendingRuns: number | null };
  creditBalance: number;
  suspended: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export function toAccountView(row: AccountRow): AccountView {
  const overrides = { granted: row.entitlementsGranted, revoked: row.entitlementsRevoked };
  const customLimits = { searchRpm: row.searchRpm, fetchUpm: row.fetchUpm, maxPendingRuns: row.maxPendingRuns };
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    entitlements: effectiveEntitlements(row.plan, overrides),
    entitlementOverrides: overrides,
    limits: effectiveLimits(row.plan, customLimits),
    customLimits,
    creditBalance: row.creditBalance,
    suspended: row.suspendedAt !== null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function hasEntitlement(account: Pick<AccountView, "entitlements">, e: Entitlement): boolean {
  return account.entitlements.includes(e);
}

/** Throws 403 FORBIDDEN naming the missing entitlement (spec 5.6, 7.1). */
export function requireEntitlement(account: Pick<AccountView, "entitlements">, e: Entitlement, what: string): void {
  if (!hasEntitlement(account, e)) {
    throw new AppError("FORBIDDEN", `${what} requires the "${e}" entitlement, which this account does not have.`);
  }
}

export function parseEntitlements(list: readonly string[]): Entitlement[] {
  const unknown = list.filter((e) => !(ENTITLEMENTS as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new AppError("INVALID_INPUT", `Unknown entitlement(s): ${unknown.join(", ")}. Known: ${ENTITLEMENTS.join(", ")}.`);
  }
  return [...new Set(list)] as Entitlement[];
}

export function accountService(deps: { db: Db; clock: Clock; ids: IdGenerator }) {
  const accounts = accountRepo(deps.db);
  const mustExist = (row: AccountRow | null, id: string): AccountView => {
    if (!row) throw new AppError("NOT_FOUND", `No account with id ${id}.`);
    return toAccountView(row);
  };
  return {
    /**
     * A new account with `credits` (default 0: callers that open accounts for people, the CLI and
     * the first start, pass the plan's monthlyCredits or an operator's figure).
     */
    async create(input: {
      plan: Plan;
      name?: string | null;
      entitlements?: readonly string[];
      credits?: number;
    }): Promise<AccountView> {
      const credits = input.credits ?? 0;
      if (!Number.isSafeInteger(credits) || credits < 0) {
        throw new AppError("INVALID_INPUT", "A credit balance must be a non-negative integer.");
      }
      const now = deps.clock.now();
      const row = await accounts.insert({
        id: deps.ids.account(),
        name: input.name ?? null,
        plan: input.plan,
        entitlementsGranted: parseEntitlements(input.entitlements ?? []),
        creditBalance: credits,
        createdAt: now,
        updatedAt: now,
      });
      return toAccountView(row);
    },

    async get(id: string): Promise<AccountView> {
      return mustExist(await accounts.get(id), id);
    },

    async list(): Promise<AccountView[]> {
      return (await accounts.list()).map(toAccountView);
    },

    count: () => accounts.count(),

    async setPlan(id: string, plan: Plan): Promise<AccountView> {
      return mustExist(await accounts.setPlan(id, plan), id);
    },

    /** Grants entitlements: they are added to the grants and no longer revoked. */
    async grant(id: string, list: readonly string[]): Promise<AccountView> {
      const add = parseEntitlements(list);
      const current = mustExist(await accounts.get(id), id);
      const granted = [...new Set([...current.entitlementOverrides.granted, ...add])];
      const revoked = current.entitlementOverrides.revoked.filter((e) => !add.includes(e as Entitlement));
      return mustExist(await accounts.setEntitlementOverrides(id, granted, revoked), id);
    },

    /** Revokes entitlements, including ones the plan would otherwise give. */
    async revoke(id: string, list: readonly string[]): Promise<AccountView> {
      const remove = parseEntitlements(list);
      const current = mustExist(await accounts.get(id), id);
      const granted = current.entitlementOverrides.granted.filter((e) => !remove.includes(e as Entitlement));
      const revoked = [...new Set([...current.entitlementOverrides.revoked, ...remove])];
      return mustExist(await accounts.setEntitlementOverrides(id, granted, revoked), id);
    },

    async addCredits(id: string, delta: number): Promise<AccountView> {
      if (!Number.isSafeInteger(delta)) throw new AppError("INVALID_INPUT", "A credit change must be an integer.");
      return mustExist(await accounts.addCredits(id, delta), id);
    },

    async setCredits(id: string, balance: number): Promise<AccountView> {
      if (!Number.isSafeInteger(balance) || balance < 0) {
        throw new AppError("INVALID_INPUT", "A credit balance must be a non-negative integer.");
      }
      return mustExist(await accounts.setCredits(id, balance), id);
    },

    async setLimits(id: string, patch: LimitsPatch): Promise<AccountView> {
      return mustExist(await accounts.setLimits(id, patch), id);
    },

    async setSuspended(id: string, suspended: boolean): Promise<AccountView> {
      return mustExist(await accounts.setSuspended(id, suspended ? deps.clock.now() : null), id);
    },
  };
}

export type AccountService = ReturnType<typeof accountService>;

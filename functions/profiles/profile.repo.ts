import { and, count, desc, eq, getTableColumns, inArray, ne, sql } from "drizzle-orm";
import {
  accounts,
  type BrowserProfileDomainRow,
  type BrowserProfileRow,
  browserProfileDomains,
  browserProfiles,
  type NewBrowserProfileRow,
} from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type { BrowserProfileDomainRow, BrowserProfileRow };

/** What the API shows of a domain: everything but its sealed state. */
export type DomainMeta = Omit<BrowserProfileDomainRow, "stateCiphertext">;

export interface ProfilePatch {
  name?: string;
  proxyCountryCode?: string | null;
  isDefault?: boolean;
}

/** One domain's part of a save, sealed and counted by the store. */
export type DomainOp =
  | { kind: "write"; domain: string; sealed: string; cookieCount: number; localStorageOriginCount: number }
  | { kind: "forget"; domain: string }
  | { kind: "access"; domain: string };

export interface AppliedSave {
  /** False when the profile is not (or no longer) the account's: nothing was written. */
  saved: boolean;
  /** New domains left out because the profile already had `maxDomains`. */
  overCap: string[];
}

const { stateCiphertext: _sealed, ...metaColumns } = getTableColumns(browserProfileDomains);

const byDomain = <T extends { domain: string }>(rows: T[]): T[] =>
  // Code-unit order, the same on every database collation.
  rows.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));

/**
 * Browser Context Profiles and their per-domain state. Every read and write names the owning
 * account; a domain row is reached only through its account's profile.
 */
export function profileRepo(db: Db) {
  /** Locks the account row: creates and default moves of one account take turns (cap count, one default). */
  const lockAccount = (tx: Db, accountId: string) =>
    tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");

  const owned = (accountId: string, id: string) => and(eq(browserProfiles.accountId, accountId), eq(browserProfiles.id, id));

  /** Locks the profile row against other writers (and DELETE) until commit; empty when not the account's. */
  const lockProfile = (tx: Db, accountId: string, id: string) =>
    tx.select({ id: browserProfiles.id }).from(browserProfiles).where(owned(accountId, id)).for("no key update");

  return {
    /**
     * Inserts a profile unless the account already has `max`; a default one takes the default from
     * the account's other profile in the same transaction.
     */
    async insertWithinCap(
      row: NewBrowserProfileRow,
      max: number,
    ): Promise<{ ok: true; row: BrowserProfileRow } | { ok: false; count: number }> {
      return db.transaction(async (tx) => {
        await lockAccount(tx, row.accountId);
        const [c] = await tx.select({ n: count() }).from(browserProfiles).where(eq(browserProfiles.accountId, row.accountId));
        const n = c?.n ?? 0;
        if (n >= max) return { ok: false as const, count: n };
        if (row.isDefault) {
          await tx
            .update(browserProfiles)
            .set({ isDefault: false, updatedAt: row.updatedAt })
            .where(and(eq(browserProfiles.accountId, row.accountId), eq(browserProfiles.isDefault, true)));
        }
        const [inserted] = await tx.insert(browserProfiles).values(row).returning();
        if (!inserted) throw new Error("browser profile insert returned no row");
        return { ok: true as const, row: inserted };
      });
    },

    async get(accountId: string, id: string): Promise<BrowserProfileRow | null> {
      const [row] = await db.select().from(browserProfiles).where(owned(accountId, id));
      return row ?? null;
    },

    /** The domains (no state) of profiles already read as the account's, sorted by domain. */
    async domainsOf(profileIds: string[]): Promise<DomainMeta[]> {
      if (profileIds.length === 0) return [];
      const rows = await db
        .select(metaColumns)
        .from(browserProfileDomains)
        .where(inArray(browserProfileDomains.profileId, profileIds));
      return byDomain(rows);
    },

    /** A page of the account's profiles, newest first. */
    async list(accountId: string, page: PageRequest): Promise<{ items: BrowserProfileRow[]; total: number }> {
      const where = eq(browserProfiles.accountId, accountId);
      const [c] = await db.select({ n: count() }).from(browserProfiles).where(where);
      const items = await db
        .select()
        .from(browserProfiles)
        .where(where)
        .orderBy(desc(browserProfiles.createdAt), desc(browserProfiles.id))
        .limit(page.limit)
        .offset(pageOffset(page));
      return { items, total: c?.n ?? 0 };
    },

    /** Applies `patch`; `isDefault: true` takes the default from the account's other profile. Null when not the account's. */
    async update(accountId: string, id: string, patch: ProfilePatch, at: Date): Promise<BrowserProfileRow | null> {
      return db.transaction(async (tx) => {
        // The account first, then the profile: the one lock order of every transaction here.
        if (patch.isDefault) await lockAccount(tx, accountId);
        const [mine] = await lockProfile(tx, accountId, id);
        if (!mine) return null;
        if (patch.isDefault) {
          await tx
            .update(browserProfiles)
            .set({ isDefault: false, updatedAt: at })
            .where(
              and(eq(browserProfiles.accountId, accountId), eq(browserProfiles.isDefault, true), ne(browserProfiles.id, id)),
            );
        }
        const [row] = await tx
          .update(browserProfiles)
          .set({ ...patch, updatedAt: at })
          .where(owned(accountId, id))
          .returning();
        return row ?? null;
      });
    },

    /** Deletes the profile and, by the foreign key's cascade, its domains; false when not the account's. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const rows = await db.delete(browserProfiles).where(owned(accountId, id)).returning({ id: browserProfiles.id });
      return rows.length > 0;
    },

    /** Forgets one domain's state (the profile's updated_at becomes `at`). */
    async forgetDomain(
      accountId: string,
      id: string,
      domain: string,
      at: Date,
    ): Promise<"forgotten" | "no-profile" | "no-domain"> {
      return db.transaction(async (tx) => {
        // Locked as a save locks it: a save and a forget of one profile take turns.
        const [mine] = await lockProfile(tx, accountId, id);
        if (!mine) return "no-profile" as const;
        const gone = await tx
          .delete(browserProfileDomains)
          .where(and(eq(browserProfileDomains.profileId, id), eq(browserProfileDomains.domain, domain)))
          .returning({ domain: browserProfileDomains.domain });
        if (gone.length === 0) return "no-domain" as const;
        await tx.update(browserProfiles).set({ updatedAt: at }).where(owned(accountId, id));
        return "forgotten" as const;
      });
    },

    /** `id` when it is the account's, else (id undefined) the account's default profile. */
    async resolve(accountId: string, id: string | undefined): Promise<BrowserProfileRow | null> {
      const where =
        id === undefined
          ? and(eq(browserProfiles.accountId, accountId), eq(browserProfiles.isDefault, true))
          : owned(accountId, id);
      const [row] = await db.select().from(browserProfiles).where(where).limit(1);
      return row ?? null;
    },

    /** The profile and every domain row with its sealed state; null when not the account's. */
    async withStates(
      accountId: string,
      id: string,
    ): Promise<{ profile: BrowserProfileRow; domains: BrowserProfileDomainRow[] } | null> {
      const [profile] = await db.select().from(browserProfiles).where(owned(accountId, id));
      if (!profile) return null;
      const domains = await db.select().from(browserProfileDomains).where(eq(browserProfileDomains.profileId, id));
      return { profile, domains: byDomain(domains) };
    },

    /**
     * One save, in one transaction. The profile row is updated first (updated_at), which both
     * checks that it is still the account's (a profile deleted meanwhile: nothing is written) and
     * locks it until commit: saves of one profile take turns, and a DELETE waits for a save in
     * progress. Then, per domain: a write replaces the row whole (upsert, version + 1), a forget
     * deletes it, an access moves last_accessed_at forward. Last writer wins, per domain.
     */
    async applySave(
      accountId: string,
      id: string,
      ops: DomainOp[],
      opts: { at: Date; writtenBy: string; maxDomains: number },
    ): Promise<AppliedSave> {
      const { at, writtenBy } = opts;
      return db.transaction(async (tx) => {
        const [profile] = await tx
          .update(browserProfiles)
          .set({ updatedAt: sql`greatest(${browserProfiles.updatedAt}, ${at.toISOString()}::timestamptz)` })
          .where(owned(accountId, id))
          .returning({ id: browserProfiles.id });
        if (!profile) return { saved: false, overCap: [] };
        const existing = new Set(
          (
            await tx
              .select({ domain: browserProfileDomains.domain })
              .from(browserProfileDomains)
              .where(eq(browserProfileDomains.profileId, id))
          ).map((r) => r.domain),
        );
        const overCap: string[] = [];
        const pd = browserProfileDomains;
        for (const op of byDomain([...ops])) {
          const here = and(eq(pd.profileId, id), eq(pd.domain, op.domain));
          if (op.kind === "forget") {
            await tx.delete(pd).where(here);
            existing.delete(op.domain);
          } else if (op.kind === "access") {
            await tx
              .update(pd)
              .set({ lastAccessedAt: sql`greatest(${pd.lastAccessedAt}, ${at.toISOString()}::timestamptz)` })
              .where(here);
          } else if (!existing.has(op.domain) && existing.size >= opts.maxDomains) {
            overCap.push(op.domain);
          } else {
            existing.add(op.domain);
            const state = {
              stateCiphertext: op.sealed,
              cookieCount: op.cookieCount,
              localStorageOriginCount: op.localStorageOriginCount,
              lastWrittenAt: at,
              lastWrittenByRunId: writtenBy,
            };
            await tx
              .insert(pd)
              .values({ profileId: id, domain: op.domain, ...state, lastAccessedAt: at, version: 1 })
              .onConflictDoUpdate({
                target: [pd.profileId, pd.domain],
                set: {
                  ...state,
                  // A write counts as an access (the browser held the domain's state).
                  lastAccessedAt: sql`greatest(${pd.lastAccessedAt}, excluded.last_accessed_at)`,
                  version: sql`${pd.version} + 1`,
                },
              });
          }
        }
        return { saved: true, overCap };
      });
    },

    /**
     * Operator-wide (for `osprey vault rekey`): up to `limit` sealed states after (profileId,
     * domain) `after`, in that order.
     */
    async sealedStates(
      after: { profileId: string; domain: string } | null,
      limit: number,
    ): Promise<{ profileId: string; domain: string; sealed: string }[]> {
      const pd = browserProfileDomains;
      return (
        db
          .select({ profileId: pd.profileId, domain: pd.domain, sealed: pd.stateCiphertext })
          .from(pd)
          // "C" in the comparison as in the order, so no collation skips or repeats a row between batches.
          .where(
            after
              ? sql`(${pd.profileId} collate "C", ${pd.domain} collate "C") > (${after.profileId} collate "C", ${after.domain} collate "C")`
              : undefined,
          )
          .orderBy(sql`${pd.profileId} collate "C"`, sql`${pd.domain} collate "C"`)
          .limit(limit)
      );
    },

    /** Replaces a sealed state with its re-sealed copy unless a save changed it meanwhile (false then). */
    async replaceSealed(profileId: string, domain: string, from: string, to: string): Promise<boolean> {
      const pd = browserProfileDomains;
      const rows = await db
        .update(pd)
        .set({ stateCiphertext: to })
        .where(and(eq(pd.profileId, profileId), eq(pd.domain, domain), eq(pd.stateCiphertext, from)))
        .returning({ domain: pd.domain });
      return rows.length > 0;
    },
  };
}

export type ProfileRepo = ReturnType<typeof profileRepo>;

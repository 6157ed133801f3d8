import { and, count, desc, eq, gt, inArray, lt, ne, type SQL, sql } from "drizzle-orm";
import { accounts, type BrowserSessionRow, browserSessions, type NewBrowserSessionRow } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type { BrowserSessionRow, NewBrowserSessionRow };

const OPEN = ["created", "running"] as const;

export interface SessionUsageFilter {
  sessionId?: string;
  startAfter?: Date;
  endBefore?: Date;
  status?: "running" | "ended";
}

export interface SessionEnd {
  reason: string;
  at: Date;
  rxBytes: number | null;
  txBytes: number | null;
}

/** Browser session rows (spec 2.4): reads by an owner are scoped to its account and key scope. */
export function sessionRepo(db: Db) {
  return {
    /**
     * Inserts a session unless the account already has `maxOpen` open ones (the account row is
     * locked for the count, so two creates at once cannot both take the last slot).
     */
    async insertWithinCap(
      row: Omit<NewBrowserSessionRow, "status">,
      maxOpen: number,
    ): Promise<{ ok: true; row: BrowserSessionRow } | { ok: false; open: number }> {
      return db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, row.accountId)).for("update");
        const [c] = await tx
          .select({ n: count() })
          .from(browserSessions)
          .where(and(eq(browserSessions.accountId, row.accountId), inArray(browserSessions.status, OPEN)));
        const open = c?.n ?? 0;
        if (open >= maxOpen) return { ok: false as const, open };
        const [inserted] = await tx
          .insert(browserSessions)
          .values({ ...row, status: "created" })
          .returning();
        if (!inserted) throw new Error("browser session insert returned no row");
        return { ok: true as const, row: inserted };
      });
    },

    async get(id: string): Promise<BrowserSessionRow | null> {
      const [row] = await db.select().from(browserSessions).where(eq(browserSessions.id, id));
      return row ?? null;
    },

    /** A session as its owner sees it: another account's or key scope's session is "not found". */
    async getOwned(id: string, accountId: string, keyScope: string): Promise<BrowserSessionRow | null> {
      const [row] = await db
        .select()
        .from(browserSessions)
        .where(and(eq(browserSessions.id, id), eq(browserSessions.accountId, accountId), eq(browserSessions.keyScope, keyScope)));
      return row ?? null;
    },

    /** The open session with this connect token (the live view's credential). */
    async getOpenByToken(token: string): Promise<BrowserSessionRow | null> {
      const [row] = await db
        .select()
        .from(browserSessions)
        .where(and(eq(browserSessions.connectToken, token), inArray(browserSessions.status, OPEN)));
      return row ?? null;
    },

    /** created → running, the first time a CDP client connects; counts every connection. */
    async markConnected(id: string, at: Date): Promise<void> {
      await db
        .update(browserSessions)
        .set({
          status: sql`case when ${browserSessions.status} = 'created' then 'running' else ${browserSessions.status} end`,
          connections: sql`${browserSessions.connections} + 1`,
          updatedAt: at,
        })
        .where(and(eq(browserSessions.id, id), ne(browserSessions.status, "ended")));
    },

    /** The byte counters so far, while the session is open (so a lost host still leaves a figure). */
    async recordBytes(id: string, rxBytes: number, txBytes: number, at: Date): Promise<void> {
      await db
        .update(browserSessions)
        .set({ proxyRxBytes: rxBytes, proxyTxBytes: txBytes, updatedAt: at })
        .where(and(eq(browserSessions.id, id), ne(browserSessions.status, "ended")));
    },

    /**
     * Ends a session once: status, end time, duration from its start, the final byte counts (or
     * the last recorded ones when the host has none). Null when it had already ended.
     */
    async end(id: string, e: SessionEnd): Promise<BrowserSessionRow | null> {
      const [row] = await db
        .update(browserSessions)
        .set({
          status: "ended",
          endTime: e.at,
          endReason: e.reason,
          durationMs: sql`greatest(0, floor(extract(epoch from (${e.at.toISOString()}::timestamptz - ${browserSessions.startTime})) * 1000))::bigint`,
          proxyRxBytes: e.rxBytes ?? sql`${browserSessions.proxyRxBytes}`,
          proxyTxBytes: e.txBytes ?? sql`${browserSessions.proxyTxBytes}`,
          updatedAt: e.at,
        })
        .where(and(eq(browserSessions.id, id), ne(browserSessions.status, "ended")))
        .returning();
      return row ?? null;
    },

    /** Of these session ids, the ones whose row has ended (by a DELETE another host took, or a sweep). */
    async endedAmong(ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .select({ id: browserSessions.id })
        .from(browserSessions)
        .where(and(inArray(browserSessions.id, ids), eq(browserSessions.status, "ended")));
      return rows.map((r) => r.id);
    },

    /** The final byte counts of a session whose row another host ended before its browser was gone. */
    async setFinalBytes(id: string, rxBytes: number, txBytes: number): Promise<void> {
      await db.update(browserSessions).set({ proxyRxBytes: rxBytes, proxyTxBytes: txBytes }).where(eq(browserSessions.id, id));
    },

    /** The account's open setup session of a profile (POST /v1/profiles/{id}/setup-session), newest first. */
    async openSetup(accountId: string, profileId: string): Promise<BrowserSessionRow | null> {
      const [row] = await db
        .select()
        .from(browserSessions)
        .where(
          and(
            eq(browserSessions.accountId, accountId),
            inArray(browserSessions.status, OPEN),
            sql`${browserSessions.options}->>'profile_id' = ${profileId}`,
            sql`${browserSessions.options}->>'setup' = 'true'`,
          ),
        )
        .orderBy(desc(browserSessions.createdAt))
        .limit(1);
      return row ?? null;
    },

    /**
     * Open sessions of one host that started before `startedBefore` (a host that restarts ends what
     * its predecessor held, never a session created for itself since).
     */
    async openOnHost(hostId: string, startedBefore: Date): Promise<BrowserSessionRow[]> {
      return db
        .select()
        .from(browserSessions)
        .where(
          and(
            eq(browserSessions.hostId, hostId),
            inArray(browserSessions.status, OPEN),
            lt(browserSessions.startTime, startedBefore),
          ),
        );
    },

    /** Open sessions whose host has not written for a while: their host is gone. */
    async staleOpen(updatedBefore: Date): Promise<BrowserSessionRow[]> {
      return db
        .select()
        .from(browserSessions)
        .where(and(inArray(browserSessions.status, OPEN), lt(browserSessions.updatedAt, updatedBefore)));
    },

    /** Marks the open sessions of a host as alive (their updated_at is the host's heartbeat). */
    async touchHost(hostId: string, at: Date): Promise<void> {
      await db
        .update(browserSessions)
        .set({ updatedAt: at })
        .where(and(eq(browserSessions.hostId, hostId), inArray(browserSessions.status, OPEN)));
    },

    async usage(
      accountId: string,
      keyScope: string,
      filter: SessionUsageFilter,
      page: PageRequest,
    ): Promise<{ items: BrowserSessionRow[]; total: number }> {
      const conditions: SQL[] = [eq(browserSessions.accountId, accountId), eq(browserSessions.keyScope, keyScope)];
      if (filter.sessionId) conditions.push(eq(browserSessions.id, filter.sessionId));
      if (filter.startAfter) conditions.push(gt(browserSessions.startTime, filter.startAfter));
      if (filter.endBefore) conditions.push(lt(browserSessions.endTime, filter.endBefore));
      // "running" lists every session not ended yet (a created one has not been connected to yet).
      if (filter.status === "ended") conditions.push(eq(browserSessions.status, "ended"));
      if (filter.status === "running") conditions.push(inArray(browserSessions.status, OPEN));
      const where = and(...conditions);
      const items = await db
        .select()
        .from(browserSessions)
        .where(where)
        .orderBy(desc(browserSessions.createdAt), desc(browserSessions.id))
        .limit(page.limit)
        .offset(pageOffset(page));
      const [total] = await db.select({ n: count() }).from(browserSessions).where(where);
      return { items, total: total?.n ?? 0 };
    },
  };
}

export type SessionRepo = ReturnType<typeof sessionRepo>;

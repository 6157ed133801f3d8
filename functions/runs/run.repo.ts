import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { RunEntry, RunError, RunEventType, RunStatus, TerminalRunStatus } from "../../schema/runs.ts";
import { accounts, runEvents, runSteps, runs, webhookDeliveries } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { type PageRequest, pageOffset } from "../lib/pagination.ts";

export type RunRow = typeof runs.$inferSelect;
export type RunEventRow = typeof runEvents.$inferSelect;
export type RunStepRow = typeof runSteps.$inferSelect;
export type NewRunStep = typeof runSteps.$inferInsert;

export const OPEN_STATUSES = ["PENDING", "RUNNING"] as const satisfies readonly RunStatus[];

/** The heartbeat is older than `staleMs` by the database's clock (every process agrees on it). */
const staleBefore = (staleMs: number) => sql`${runs.heartbeatAt} < now() - ${`${staleMs} milliseconds`}::interval`;

export interface NewRun {
  id: string;
  accountId: string;
  keyId: string;
  keyScope: string;
  subUserId: string | null;
  entry: RunEntry;
  batchId: string | null;
  request: Record<string, unknown>;
  liveToken: string;
}

export interface RunListFilter {
  accountId: string;
  keyScope: string;
  status?: RunStatus;
  batchId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface TerminalWrite {
  status: TerminalRunStatus;
  result: unknown;
  error: RunError | null;
  /** Built by the caller from the final row (the GET /v1/runs/{id} shape): the COMPLETE event and webhook payload. */
  completeEvent: (row: RunRow) => Record<string, unknown>;
  webhook: (row: RunRow) => { id: string; url: string; eventType: string; payload: Record<string, unknown> } | null;
  /** Write only while this worker owns the run (the worker's own ending of a run it drove). */
  ownedBy?: string;
}

/**
 * Runs, their events and steps. Status writes are guarded in SQL so a status only moves forward
 * (schema/runs.ts): every transition names the statuses it may leave, and a write that finds the
 * run elsewhere changes nothing and says so (returns null / false). The worker side of a run (who
 * owns it: start, heartbeat, liveness; the sweep for runs whose queue message may be lost; the
 * acted/requeue marks that decide whether a crash is retried) comes first.
 */
export function runRepo(db: Db) {
  return {
    /**
     * A worker takes the run: PENDING → RUNNING, or RUNNING → RUNNING for a crash-recovery retry of
     * a run that had not acted and whose owner stopped heartbeating `staleMs` ago. Counts the
     * attempt. Null when the run is terminal, had acted, or has a live owner.
     */
    async start(id: string, workerId: string, staleMs: number): Promise<RunRow | null> {
      const [row] = await db
        .update(runs)
        .set({
          status: "RUNNING",
          workerId,
          heartbeatAt: sql`now()`,
          attempts: sql`${runs.attempts} + 1`,
          startedAt: sql`coalesce(${runs.startedAt}, now())`,
          updatedAt: sql`now()`,
        })
        .where(
          and(
            eq(runs.id, id),
            or(
              eq(runs.status, "PENDING"),
              and(eq(runs.status, "RUNNING"), isNull(runs.actedAt), or(isNull(runs.heartbeatAt), staleBefore(staleMs))),
            ),
          ),
        )
        .returning();
      return row ?? null;
    },

    /** The owner's heartbeat; false when this worker no longer owns the run (another took it over, or it ended). */
    async heartbeat(id: string, workerId: string): Promise<boolean> {
      const [row] = await db
        .update(runs)
        .set({ heartbeatAt: sql`now()` })
        .where(and(eq(runs.id, id), eq(runs.workerId, workerId), eq(runs.status, "RUNNING")))
        .returning({ id: runs.id });
      return row !== undefined;
    },

    /** Whether a RUNNING run's owner heartbeated within `staleMs` (a delivery of it now is a duplicate). */
    async ownerAlive(id: string, staleMs: number): Promise<boolean> {
      const [row] = await db
        .select({ id: runs.id })
        .from(runs)
        .where(
          and(
            eq(runs.id, id),
            eq(runs.status, "RUNNING"),
            sql`${runs.heartbeatAt} >= now() - ${`${staleMs} milliseconds`}::interval`,
          ),
        );
      return row !== undefined;
    },

    /**
     * Runs whose queue message may be lost: PENDING and sent more than `pendingMs` ago, or RUNNING
     * with an owner silent for `staleMs`. Their `enqueued_at` is bumped so the next sweep waits again.
     */
    async claimOrphans(pendingMs: number, staleMs: number, limit: number): Promise<string[]> {
      const rows = await db
        .update(runs)
        .set({ enqueuedAt: sql`now()` })
        .where(
          inArray(
            runs.id,
            db
              .select({ id: runs.id })
              .from(runs)
              .where(
                or(
                  and(eq(runs.status, "PENDING"), sql`${runs.enqueuedAt} < now() - ${`${pendingMs} milliseconds`}::interval`),
                  and(
                    eq(runs.status, "RUNNING"),
                    staleBefore(staleMs),
                    sql`${runs.enqueuedAt} < now() - ${`${staleMs} milliseconds`}::interval`,
                  ),
                ),
              )
              .limit(limit),
          ),
        )
        .returning({ id: runs.id });
      return rows.map((r) => r.id);
    },

    /**
     * Recorded before the first action that can change the page or the site: from here on a crash
     * is not retried. False (nothing written) when `workerId` no longer owns the run.
     */
    async markActed(id: string, workerId: string): Promise<boolean> {
      const [row] = await db
        .update(runs)
        .set({ actedAt: sql`coalesce(${runs.actedAt}, now())`, updatedAt: sql`now()` })
        .where(and(eq(runs.id, id), eq(runs.workerId, workerId), eq(runs.status, "RUNNING")))
        .returning({ id: runs.id });
      return row !== undefined;
    },

    /** Gives a RUNNING run that had not acted back to PENDING (worker shutdown before acting). */
    async requeue(id: string): Promise<boolean> {
      const [row] = await db
        .update(runs)
        .set({ status: "PENDING", workerId: null, heartbeatAt: null, updatedAt: sql`now()` })
        .where(and(eq(runs.id, id), eq(runs.status, "RUNNING"), isNull(runs.actedAt)))
        .returning({ id: runs.id });
      return row !== undefined;
    },

    /**
     * Inserts a PENDING run and its STARTED event, unless the account already has `maxOpen` runs
     * that are not terminal: the account row is locked for the count, so two concurrent requests
     * cannot both take the last slot. Returns the open count seen when refused.
     */
    async insertWithinCap(run: NewRun, maxOpen: number): Promise<{ ok: true; row: RunRow } | { ok: false; open: number }> {
      return db.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, run.accountId)).for("update");
        const [c] = await tx
          .select({ n: count() })
          .from(runs)
          .where(and(eq(runs.accountId, run.accountId), inArray(runs.status, OPEN_STATUSES)));
        const open = c?.n ?? 0;
        if (open >= maxOpen) return { ok: false as const, open };
        const [row] = await tx
          .insert(runs)
          .values({ ...run, status: "PENDING" })
          .returning();
        if (!row) throw new Error("run insert returned no row");
        await tx.insert(runEvents).values({ runId: row.id, type: "STARTED", data: {} });
        return { ok: true as const, row };
      });
    },

    async get(id: string): Promise<RunRow | null> {
      const [row] = await db.select().from(runs).where(eq(runs.id, id));
      return row ?? null;
    },

    /** A run as its owner sees it: another account's or another key scope's run is "not found". */
    async getOwned(id: string, accountId: string, keyScope: string): Promise<RunRow | null> {
      const [row] = await db
        .select()
        .from(runs)
        .where(and(eq(runs.id, id), eq(runs.accountId, accountId), eq(runs.keyScope, keyScope)));
      return row ?? null;
    },

    async getByLiveToken(token: string): Promise<RunRow | null> {
      const [row] = await db.select().from(runs).where(eq(runs.liveToken, token));
      return row ?? null;
    },

    async list(f: RunListFilter, p: PageRequest): Promise<{ rows: RunRow[]; total: number }> {
      const where = and(
        eq(runs.accountId, f.accountId),
        eq(runs.keyScope, f.keyScope),
        f.status ? eq(runs.status, f.status) : undefined,
        f.batchId ? eq(runs.batchId, f.batchId) : undefined,
        f.createdAfter ? gte(runs.createdAt, f.createdAfter) : undefined,
        f.createdBefore ? lt(runs.createdAt, f.createdBefore) : undefined,
      );
      const [rows, [c]] = await Promise.all([
        db.select().from(runs).where(where).orderBy(desc(runs.createdAt), desc(runs.id)).limit(p.limit).offset(pageOffset(p)),
        db.select({ n: count() }).from(runs).where(where),
      ]);
      return { rows, total: c?.n ?? 0 };
    },

    async requestCancel(id: string): Promise<RunRow | null> {
      const [row] = await db
        .update(runs)
        .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, now())`, updatedAt: sql`now()` })
        .where(and(eq(runs.id, id), inArray(runs.status, OPEN_STATUSES)))
        .returning();
      return row ?? null;
    },

    /**
     * The terminal write: status, result or error, the COMPLETE event and the webhook outbox row,
     * in one transaction, only from a non-terminal status (and, with `ownedBy`, only while that
     * worker owns the run). Null when the run was already terminal or owned by another worker
     * (nothing is written: the first terminal write wins).
     */
    async finish(id: string, w: TerminalWrite): Promise<RunRow | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(runs)
          .set({
            status: w.status,
            result: w.result ?? null,
            error: w.error,
            finishedAt: sql`now()`,
            updatedAt: sql`now()`,
          })
          .where(
            and(
              eq(runs.id, id),
              inArray(runs.status, OPEN_STATUSES),
              w.ownedBy === undefined ? undefined : eq(runs.workerId, w.ownedBy),
            ),
          )
          .returning();
        if (!row) return null;
        await tx.insert(runEvents).values({ runId: id, type: "COMPLETE", data: w.completeEvent(row) });
        const hook = w.webhook(row);
        if (hook) await tx.insert(webhookDeliveries).values({ ...hook, runId: id, accountId: row.accountId });
        return row;
      });
    },

    async appendEvent(runId: string, type: Exclude<RunEventType, "STARTED" | "COMPLETE">, data: Record<string, unknown>) {
      await db.insert(runEvents).values({ runId, type, data });
    },

    async eventsAfter(runId: string, afterId: number): Promise<RunEventRow[]> {
      return db
        .select()
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId), gt(runEvents.id, afterId)))
        .orderBy(asc(runEvents.id));
    },

    /**
     * Records a step and adds its counters to the run, only while `workerId` owns the run (a worker
     * whose lease was lost writes nothing); false when it does not.
     */
    async addStep(step: NewRunStep, usage: { inputTokens: number; outputTokens: number }, workerId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [owned] = await tx
          .update(runs)
          .set({
            steps: sql`greatest(${runs.steps}, ${step.step})`,
            inputTokens: sql`${runs.inputTokens} + ${usage.inputTokens}`,
            outputTokens: sql`${runs.outputTokens} + ${usage.outputTokens}`,
            updatedAt: sql`now()`,
          })
          .where(and(eq(runs.id, step.runId), eq(runs.workerId, workerId), eq(runs.status, "RUNNING")))
          .returning({ id: runs.id });
        if (!owned) return false;
        await tx.insert(runSteps).values(step).onConflictDoNothing();
        return true;
      });
    },

    /**
     * Charges step `step` of a run `n` credits, once per (run, step): a second driver of the same
     * run (a redelivery after a lapsed lease, a crash-recovery retry) cannot charge a step the
     * run was already charged for. `credits_used` grows by `n` per charged step, so it says how
     * many steps were charged; step k is charged only while fewer than k were. Only the run's
     * owner (`worker_id`, status RUNNING) can charge; the run row is locked for the decision.
     * - charged: the account paid for this step
     * - already: this step was paid for by an earlier attempt; nothing taken
     * - short: the balance cannot cover it; nothing taken
     * - lost: this worker no longer owns the run; nothing taken (it must stop)
     */
    async chargeStep(
      runId: string,
      workerId: string,
      step: number,
      n: number,
    ): Promise<"charged" | "already" | "short" | "lost"> {
      return db.transaction(async (tx) => {
        const [run] = await tx
          .select({ accountId: runs.accountId, creditsUsed: runs.creditsUsed })
          .from(runs)
          .where(and(eq(runs.id, runId), eq(runs.workerId, workerId), eq(runs.status, "RUNNING")))
          .for("update");
        if (!run) return "lost";
        if (run.creditsUsed >= step * n) return "already";
        const [acc] = await tx
          .update(accounts)
          .set({ creditBalance: sql`${accounts.creditBalance} - ${n}`, updatedAt: sql`now()` })
          .where(and(eq(accounts.id, run.accountId), gte(accounts.creditBalance, n)))
          .returning({ id: accounts.id });
        if (!acc) return "short";
        await tx
          .update(runs)
          .set({ creditsUsed: sql`${runs.creditsUsed} + ${n}` })
          .where(eq(runs.id, runId));
        return "charged";
      });
    },

    async steps(runId: string): Promise<RunStepRow[]> {
      return db.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.step));
    },

    async step(runId: string, n: number): Promise<RunStepRow | null> {
      const [row] = await db
        .select()
        .from(runSteps)
        .where(and(eq(runSteps.runId, runId), eq(runSteps.step, n)));
      return row ?? null;
    },
  };
}

export type RunRepo = ReturnType<typeof runRepo>;

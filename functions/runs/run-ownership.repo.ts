import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { runs } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import type { RunRow } from "./run.repo.ts";

/** The heartbeat is older than `staleMs` by the database's clock (every process agrees on it). */
const staleBefore = (staleMs: number) => sql`${runs.heartbeatAt} < now() - ${`${staleMs} milliseconds`}::interval`;

/**
 * The worker side of a run: who owns it (start, heartbeat, liveness), the sweep for runs whose
 * queue message may be lost, and the acted/requeue marks that decide whether a crash is retried.
 * `runRepo(db)` includes these methods; use this directly only where nothing else is needed.
 */
export function runOwnershipRepo(db: Db) {
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
  };
}

export type RunOwnershipRepo = ReturnType<typeof runOwnershipRepo>;

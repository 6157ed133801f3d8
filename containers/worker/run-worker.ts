import type { Extractor } from "../../functions/extract/types.ts";
import { newId } from "../../functions/lib/ids.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { LeaseLostError, type ReceivedMessage, type RunQueue } from "../../functions/queue/queue.ts";
import type { RunLifecycle } from "../../functions/runs/run-lifecycle.ts";
import type { BlobStore } from "../../functions/storage/blob-store.ts";
import type { RunCredentials } from "../../functions/vault/run-credentials.ts";
import { isTerminal, runError, runMessage } from "../../schema/runs.ts";
import type { ModelProvider } from "../agent/model/types.ts";
import type { RunBrowserPool } from "../browser/run-session.ts";
import { type DriveDeps, driveRun, SHUTDOWN, systemFailure } from "./drive-run.ts";

export interface RunWorkerOptions {
  /** The process's runs: repository, finisher, notifier and public URL (shared with its edge side, if any). */
  lifecycle: RunLifecycle;
  queue: RunQueue;
  browsers: RunBrowserPool;
  /** Null when no model is configured: runs that reach the worker fail SERVICE_BUSY. */
  model: ModelProvider | null;
  extractor: Extractor;
  blobs: BlobStore;
  logger: Logger;
  /** Runs at once in this worker (each in its own browser context). Default 2. */
  concurrency?: number;
  /** How long a received run stays invisible to other workers unless extended. Default 30 s. */
  leaseMs?: number;
  /** Lease extension period. Default leaseMs / 3. */
  heartbeatMs?: number;
  /** Long-poll wait of one receive. Default 2 s. */
  pollWaitMs?: number;
  /** Attempts (crash-recovery retries included) before a run that never acted is failed. Default 3. */
  maxAttempts?: number;
  /** How often a running run's cancel flag is read. Default 1 s. */
  cancelPollMs?: number;
  /** Send a screenshot with each page state (vision models). */
  vision?: boolean;
  /** The vault's run side: use_vault runs list and reveal the account's items through it. Absent: such runs fail. */
  credentials?: Pick<RunCredentials, "forRun" | "reveal">;
  /** Browser Context Profiles: use_profile runs load one and write back what changed. Absent: such runs fail. */
  profiles?: Pick<ProfileStore, "resolve" | "load" | "save">;
  /** A PENDING run whose message was sent this long ago is re-sent (its message may be lost). Default 5 min. */
  orphanAfterMs?: number;
  /** How often the orphan sweep runs. Default 60 s. */
  sweepEveryMs?: number;
  workerId?: string;
}

export interface RunWorker {
  readonly id: string;
  start(): void;
  /** Stops receiving, lets in-flight runs finish for up to `drainMs`, then stops them (see handle). */
  stop(drainMs: number): Promise<void>;
  inflight(): number;
}

/**
 * The queue consumer that runs the agent (ARCHITECTURE.md, flow step 2). Per message: re-read the
 * run (idempotent: a terminal run is acknowledged and skipped), take it (PENDING → RUNNING), keep
 * the lease alive while the agent works, and finish with the one terminal transaction.
 *
 * Crash safety: a worker that dies stops extending its lease, so the message is delivered again
 * once the lease lapses. The next worker finds the run RUNNING; if it had not acted on the page
 * (`acted_at` unset) it is simply run again, otherwise it ends FAILED with a SYSTEM_FAILURE error
 * (SERVICE_BUSY) rather than risk repeating a purchase or a form post.
 */
export function createRunWorker(opts: RunWorkerOptions): RunWorker {
  const id = opts.workerId ?? newId("wrk");
  const { repo, finish, notifier } = opts.lifecycle;
  const concurrency = opts.concurrency ?? 2;
  const leaseMs = opts.leaseMs ?? 30_000;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(200, Math.floor(leaseMs / 3));
  // A live owner heartbeats every heartbeatMs. A dead owner's message comes back a whole lease after
  // its last extension, and its last heartbeat was written just after that extension (drive-run.ts),
  // so judging "alive" over the whole lease called a dead owner alive and acknowledged its run's
  // only message (then only the orphan sweep, minutes later, found it). Taking a run over uses the
  // same line, so a run is either alive to one worker or stale to all.
  const aliveWithinMs = Math.min(leaseMs, Math.max(Math.floor(leaseMs / 2), 2 * heartbeatMs));
  const pollWaitMs = opts.pollWaitMs ?? 2000;
  const maxAttempts = opts.maxAttempts ?? 3;
  const cancelPollMs = opts.cancelPollMs ?? 1000;
  const orphanAfterMs = opts.orphanAfterMs ?? 300_000;
  const sweepEveryMs = opts.sweepEveryMs ?? 60_000;
  const log = opts.logger;
  const inflight = new Map<Promise<void>, AbortController>();
  const loopStop = new AbortController();
  let wake: (() => void) | null = null;
  let loopDone: Promise<void> | null = null;
  let sweeper: NodeJS.Timeout | null = null;
  const driveDeps: DriveDeps = {
    ...opts,
    workerId: id,
    repo,
    notifier,
    publicUrl: opts.lifecycle.publicUrl,
    logger: log,
    vision: opts.vision ?? false,
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(opts.profiles ? { profiles: opts.profiles } : {}),
    leaseMs,
    heartbeatMs,
    cancelPollMs,
  };

  /** Acknowledges; a delivery already acknowledged elsewhere (LeaseLostError) needs nothing more. */
  const ackQuietly = async (msg: ReceivedMessage): Promise<void> => {
    try {
      await opts.queue.ack(msg);
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
    }
  };

  /** Re-sends the messages of runs whose message may be lost (see RunRepo.claimOrphans). */
  async function sweep(): Promise<void> {
    const ids = await repo.claimOrphans(orphanAfterMs, leaseMs * 2, 50);
    for (const runId of ids) {
      log.warn("re-sending the queue message of an orphaned run", { run_id: runId });
      await opts.queue.send(runMessage(runId));
    }
  }

  async function handle(msg: ReceivedMessage, stop: AbortController): Promise<void> {
    const runId = msg.body.run_id;
    const row = await repo.get(runId);
    if (!row || isTerminal(row.status)) return ackQuietly(msg);
    if (row.cancelRequestedAt) {
      await finish(runId, "CANCELLED", null, runError("CANCELLED", "The run was cancelled by the caller."));
      return ackQuietly(msg);
    }
    if (row.status === "RUNNING" && (await repo.ownerAlive(runId, aliveWithinMs))) {
      // A duplicate delivery (SQS is at-least-once; the orphan sweep may re-send): the owner is alive.
      log.info("dropping a duplicate delivery of a run another worker is running", { run_id: runId });
      return ackQuietly(msg);
    }
    if (row.actedAt) {
      log.warn("run redelivered after its worker stopped mid-run; failing it", {
        run_id: runId,
        receive_count: msg.receiveCount,
      });
      await finish(
        runId,
        "FAILED",
        null,
        systemFailure(
          "The worker running this run stopped unexpectedly after the agent had started acting on the page. It was not retried, so that no action is repeated; start a new run.",
        ),
      );
      return ackQuietly(msg);
    }
    if (row.attempts >= maxAttempts) {
      await finish(
        runId,
        "FAILED",
        null,
        systemFailure(`The run could not be completed in ${row.attempts} attempts; retry later.`, 30),
      );
      return ackQuietly(msg);
    }
    if (!opts.model) {
      await finish(runId, "FAILED", null, systemFailure("No model is configured on the worker (OSPREY_LLM_* settings).", 60));
      return ackQuietly(msg);
    }
    const started = await repo.start(runId, id, aliveWithinMs);
    if (!started) return ackQuietly(msg);
    notifier.notify(runId);
    const outcome = await driveRun(driveDeps, started, msg, stop, opts.model);
    if (outcome === null) return; // ownership was lost: another worker owns the run now
    if (outcome === "requeue") {
      if (await repo.requeue(runId)) {
        notifier.notify(runId);
        return opts.queue.release(msg, 0).catch((err) => {
          if (!(err instanceof LeaseLostError)) throw err;
        });
      }
      const now = await repo.get(runId);
      if (now && !isTerminal(now.status)) {
        await finish(
          runId,
          "FAILED",
          null,
          systemFailure("The worker shut down while the run was in progress; start a new run.", 5),
        );
      }
      return ackQuietly(msg);
    }
    // Only while this worker still owns the run: one that lost it meanwhile writes nothing.
    if (outcome.status === "COMPLETED") await finish(runId, "COMPLETED", outcome.result, null, id);
    else if (outcome.status === "CANCELLED")
      await finish(runId, "CANCELLED", null, runError("CANCELLED", "The run was cancelled by the caller."), id);
    else await finish(runId, "FAILED", null, outcome.error, id);
    await ackQuietly(msg);
  }

  async function loop(): Promise<void> {
    while (!loopStop.signal.aborted) {
      if (inflight.size >= concurrency) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      let msgs: ReceivedMessage[];
      try {
        msgs = await opts.queue.receive({
          max: concurrency - inflight.size,
          waitMs: pollWaitMs,
          leaseMs,
          signal: loopStop.signal,
        });
      } catch (err) {
        if (loopStop.signal.aborted) break;
        log.error("queue receive failed", { error: err });
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      for (const msg of msgs) {
        const stop = new AbortController();
        const p: Promise<void> = handle(msg, stop)
          .catch(async (err) => {
            log.error("run handling failed", { run_id: msg.body.run_id, error: err });
            await finish(msg.body.run_id, "FAILED", null, systemFailure("An internal error ended the run; retry.", 5)).catch(
              () => null,
            );
            await opts.queue.ack(msg).catch(() => {});
          })
          .finally(() => {
            inflight.delete(p);
            wake?.();
            wake = null;
          });
        inflight.set(p, stop);
      }
    }
  }

  return {
    id,
    start() {
      loopDone ??= loop().catch((err) => log.error("worker loop crashed", { error: err }));
      sweeper ??= setInterval(() => {
        sweep().catch((err) => log.warn("orphan sweep failed", { error: err }));
      }, sweepEveryMs);
      sweeper.unref();
    },
    async stop(drainMs) {
      if (sweeper) clearInterval(sweeper);
      loopStop.abort();
      wake?.();
      await loopDone;
      const drained = Promise.allSettled([...inflight.keys()]);
      const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), drainMs).unref());
      if ((await Promise.race([drained, timer])) === "timeout") {
        log.warn("stopping runs still in flight after the drain period", { runs: inflight.size });
        for (const stop of inflight.values()) stop.abort(SHUTDOWN);
        await Promise.allSettled([...inflight.keys()]);
      }
    },
    inflight: () => inflight.size,
  };
}

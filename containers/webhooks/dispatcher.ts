import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { systemClock } from "../../functions/lib/clock.ts";
import { signWebhook } from "../../functions/webhooks/signing.ts";
import { getOrCreateWebhookSecret } from "../../functions/webhooks/webhook-secret.service.ts";
import { webhookAttempts, webhookDeliveries } from "../../schema/tables/index.ts";
import type { RunOnceResult, WebhookDispatcher, WebhookDispatcherOptions } from "./dispatcher.types.ts";
import { type SendResult, sendWebhook } from "./send.ts";
import {
  CLAIM_MARGIN_MS,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  judge,
  type Outcome,
  settle,
  WEBHOOK_USER_AGENT,
} from "./verdict.ts";

export type { RunOnceResult, WebhookDispatcher, WebhookDispatcherOptions } from "./dispatcher.types.ts";
export {
  CLAIM_MARGIN_MS,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  WEBHOOK_USER_AGENT,
} from "./verdict.ts";

/**
 * The webhook outbox dispatcher (spec 6.2). Producers insert webhook_deliveries rows (status
 * `pending`) in the transaction that ends a run; this loop claims due rows, POSTs them and records
 * every attempt in webhook_attempts. It reads and writes only the two webhook tables (and the
 * account's signing secret): delivery never changes a run.
 *
 * Each request: `POST <url>`, body `JSON.stringify(payload)`, headers `content-type:
 * application/json`, `user-agent: Osprey-Webhooks/1.0` and the Standard Webhooks trio `webhook-id`
 * (the row id, the same on every retry), `webhook-timestamp` (seconds, fresh per attempt) and
 * `webhook-signature` (`v1,…` with the account's `whsec_` secret).
 *
 * Outcomes of one attempt, and the retry schedule: see verdict.ts.
 *
 * Concurrency: a claim is one statement, `update … where id in (select … for update skip locked)`,
 * which sets locked_until = now + timeoutMs + CLAIM_MARGIN_MS and counts the attempt. Two
 * dispatchers never claim the same row; the result is written only while the claim is still ours
 * (`locked_until` unchanged), and a crashed dispatcher's claim simply expires.
 */

export function createWebhookDispatcher(opts: WebhookDispatcherOptions): WebhookDispatcher {
  const db = opts.db;
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const schedule = opts.schedule ?? DEFAULT_RETRY_SCHEDULE;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const drainTimeoutMs = opts.drainTimeoutMs ?? timeoutMs + 1000;

  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  const inFlight = new Set<Promise<unknown>>();

  async function claim() {
    const now = clock.now();
    const lockedUntil = new Date(now.getTime() + timeoutMs + CLAIM_MARGIN_MS);
    // Outbox rows are stamped with the database's now(), which can run a fraction of a millisecond
    // ahead of this process's clock: a row written just now is due by either clock.
    const dueBy = sql`greatest(${now.toISOString()}::timestamptz, now())`;
    const due = db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, dueBy),
          or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, dueBy)),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(concurrency)
      .for("update", { skipLocked: true });
    const rows = await db
      .update(webhookDeliveries)
      .set({ lockedUntil, attempts: sql`${webhookDeliveries.attempts} + 1` })
      .where(and(inArray(webhookDeliveries.id, due), eq(webhookDeliveries.status, "pending")))
      .returning();
    return { rows, lockedUntil };
  }

  type Claimed = Awaited<ReturnType<typeof claim>>["rows"][number];

  async function deliver(row: Claimed, lockedUntil: Date): Promise<Outcome | "lost"> {
    const attempt = row.attempts;
    const startedAt = clock.now();
    const started = performance.now();
    let result: SendResult;
    try {
      const secret = await getOrCreateWebhookSecret(db, row.accountId);
      const body = JSON.stringify(row.payload);
      const timestamp = Math.floor(clock.now().getTime() / 1000);
      result = await sendWebhook({
        url: row.url,
        body,
        timeoutMs,
        allow: opts.allowPrivateHosts,
        resolver: opts.resolver,
        ca: opts.ca,
        headers: {
          "content-type": "application/json",
          "user-agent": WEBHOOK_USER_AGENT,
          "webhook-id": row.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signWebhook(secret, row.id, timestamp, body),
        },
      });
    } catch (err) {
      // Only our side can throw here (the secret lookup): retry like a network failure.
      result = { kind: "network", error: `internal: ${err instanceof Error ? err.message : String(err)}`, timedOut: false };
    }
    const durationMs = Math.round(performance.now() - started);
    const finishedAt = clock.now();
    const verdict = judge(result, finishedAt);

    const { outcome, nextAttemptAt, status, error } = settle(verdict, attempt, schedule, finishedAt);

    const written = await db.transaction(async (tx) => {
      const updated = await tx
        .update(webhookDeliveries)
        .set({
          status,
          lockedUntil: null,
          lastStatus: verdict.statusCode,
          lastError: error,
          ...(nextAttemptAt ? { nextAttemptAt } : {}),
          finishedAt: status === "pending" ? null : finishedAt,
        })
        .where(
          and(
            eq(webhookDeliveries.id, row.id),
            eq(webhookDeliveries.lockedUntil, lockedUntil),
            eq(webhookDeliveries.attempts, attempt),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      if (updated.length === 0) return false;
      await tx.insert(webhookAttempts).values({
        deliveryId: row.id,
        attempt,
        startedAt,
        durationMs,
        statusCode: verdict.statusCode,
        outcome,
        error,
      });
      return true;
    });
    const fields = { delivery_id: row.id, run_id: row.runId, attempt, status_code: verdict.statusCode, error };
    if (!written) {
      logger.warn("webhook claim lost before its result was written", fields);
      return "lost";
    }
    if (outcome === "acknowledged") logger.info("webhook delivered", fields);
    else if (outcome === "retry")
      logger.info("webhook attempt failed, will retry", { ...fields, next_attempt_at: nextAttemptAt });
    else logger.warn("webhook delivery failed", fields);
    return outcome;
  }

  async function runOnce(): Promise<RunOnceResult> {
    const { rows, lockedUntil } = await claim();
    const counts: RunOnceResult = { claimed: rows.length, delivered: 0, retried: 0, failed: 0, lost: 0 };
    const results = await Promise.allSettled(
      rows.map((row) => {
        const p = deliver(row, lockedUntil);
        inFlight.add(p);
        return p.finally(() => inFlight.delete(p));
      }),
    );
    for (const r of results) {
      if (r.status === "rejected") {
        logger.error("webhook delivery could not be recorded", { error: r.reason });
        continue;
      }
      if (r.value === "acknowledged") counts.delivered++;
      else if (r.value === "retry") counts.retried++;
      else if (r.value === "failed") counts.failed++;
      else counts.lost++;
    }
    return counts;
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    }).finally(() => {
      if (timer) clearTimeout(timer);
      timer = null;
      wake = null;
    });

  async function poll(): Promise<void> {
    while (running) {
      let full = false;
      try {
        const counts = await runOnce();
        full = counts.claimed >= concurrency;
      } catch (err) {
        logger.error("webhook dispatcher poll failed", { error: err });
      }
      // A full batch means more may be due: go again at once.
      if (running && !full) await sleep(pollIntervalMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = poll();
    },
    async stop() {
      running = false;
      wake?.();
      const drained = Promise.allSettled([loop ?? Promise.resolve(), ...inFlight]).then(() => true);
      let bound: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        bound = setTimeout(() => resolve(false), drainTimeoutMs);
      });
      const finished = await Promise.race([drained, timedOut]);
      clearTimeout(bound);
      if (!finished) logger.warn("webhook dispatcher stopped with sends still in flight", { in_flight: inFlight.size });
      loop = null;
    },
    runOnce,
  };
}

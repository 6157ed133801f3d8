import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Db } from "../../functions/db/db.ts";
import { type Clock, systemClock } from "../../functions/lib/clock.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { Resolver } from "../../functions/net/address-policy.ts";
import { signWebhook } from "../../functions/webhooks/signing.ts";
import { getOrCreateWebhookSecret } from "../../functions/webhooks/webhook-secret.service.ts";
import { webhookAttempts, webhookDeliveries } from "../../schema/tables/index.ts";
import { type SendResult, sendWebhook } from "./send.ts";

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
 * Outcomes of one attempt:
 * - 2xx: acknowledged, the delivery is `delivered`.
 * - any other non-2xx status (3xx, 408, 429, 5xx), network, DNS and TLS errors, and no response
 *   within `timeoutMs` (10 s, spec section 8): retried on the schedule. A 429's Retry-After is
 *   honoured when it asks for longer than the next backoff, up to MAX_RETRY_AFTER_MS.
 * - 4xx other than 408 and 429: failed at once (spec 6.2.6).
 * - 3xx: redirects are never followed (following one would let a receiver point our signed POST
 *   somewhere else, past the address policy's view of the URL the customer gave). Spec 6.2.6 says
 *   every non-2xx response except a 4xx is retried, so a 3xx is recorded as an attempt (outcome
 *   `retry`, the error naming the Location) and retried like a 5xx; a receiver that keeps
 *   redirecting ends `failed` when the schedule runs out.
 * - a URL that is not https, or whose host or resolved address the address policy refuses: failed
 *   at once, without connecting (the attempt is recorded with the reason).
 *
 * Concurrency: a claim is one statement, `update … where id in (select … for update skip locked)`,
 * which sets locked_until = now + timeoutMs + CLAIM_MARGIN_MS and counts the attempt. Two
 * dispatchers never claim the same row; the result is written only while the claim is still ours
 * (`locked_until` unchanged), and a crashed dispatcher's claim simply expires.
 */

/**
 * Delays before retries 1..8, after the first attempt: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h,
 * 6 h (the shape Svix and Stripe use). Nine attempts in all over about 10 h 42 min; a delivery
 * still unacknowledged after the last one is `failed`.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  3 * 60 * 60_000,
  6 * 60 * 60_000,
];

/** Spec section 8: the service waits up to 10 seconds for a response. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** A 429's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60_000;
/** Added to the send timeout in a claim, so a claim outlives the attempt it covers. */
export const CLAIM_MARGIN_MS = 30_000;
export const WEBHOOK_USER_AGENT = "Osprey-Webhooks/1.0";
/** Longest text kept in webhook_attempts.error and webhook_deliveries.last_error. */
const MAX_ERROR_CHARS = 500;

export interface WebhookDispatcherOptions {
  db: Db;
  clock?: Clock;
  logger: Logger;
  /** OSPREY_ALLOW_PRIVATE_HOSTS: host[:port] entries exempt from the address policy. */
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
  /** Trusted CA certificates replacing Node's default roots (tests). */
  ca?: string | Buffer;
  timeoutMs?: number;
  /** Delays (ms) before each retry; its length is the number of retries. */
  schedule?: readonly number[];
  pollIntervalMs?: number;
  /** Deliveries claimed and sent at once. */
  concurrency?: number;
  /** How long stop() waits for sends in flight. Default: timeoutMs + 1 s. */
  drainTimeoutMs?: number;
}

export interface RunOnceResult {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
  /** Results not written because the claim was lost (expired and taken by another dispatcher). */
  lost: number;
}

export interface WebhookDispatcher {
  start(): void;
  /** Stops polling and waits (bounded) for sends in flight to finish and be recorded. */
  stop(): Promise<void>;
  /** Claims the due deliveries (up to `concurrency`), sends them and records the outcomes. */
  runOnce(): Promise<RunOnceResult>;
}

type Outcome = "acknowledged" | "retry" | "failed";

interface Verdict {
  outcome: Outcome;
  statusCode: number | null;
  error: string | null;
  /** A 429's requested wait, in ms. */
  retryAfterMs: number | null;
}

const clip = (text: string) => (text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text);

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

function judge(result: SendResult, now: Date): Verdict {
  if (result.kind === "refused") return { outcome: "failed", statusCode: null, error: result.error, retryAfterMs: null };
  if (result.kind === "network") return { outcome: "retry", statusCode: null, error: result.error, retryAfterMs: null };
  const status = result.status;
  if (status >= 200 && status < 300) return { outcome: "acknowledged", statusCode: status, error: null, retryAfterMs: null };
  const snippet = result.body.subarray(0, 200).toString("utf8").replace(/\s+/g, " ").trim();
  const error = `HTTP ${status}${snippet ? `: ${snippet}` : ""}`;
  if (status >= 300 && status < 400) {
    const location = result.headers.location ? ` to ${result.headers.location}` : "";
    return {
      outcome: "retry",
      statusCode: status,
      error: `HTTP ${status} redirect${location} (redirects are not followed)`,
      retryAfterMs: null,
    };
  }
  if (status === 408 || status === 429) {
    const retryAfterMs = status === 429 ? parseRetryAfter(result.headers["retry-after"], now) : null;
    return { outcome: "retry", statusCode: status, error, retryAfterMs };
  }
  if (status >= 400 && status < 500) return { outcome: "failed", statusCode: status, error, retryAfterMs: null };
  return { outcome: "retry", statusCode: status, error, retryAfterMs: null };
}

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

    let outcome = verdict.outcome;
    let nextAttemptAt: Date | null = null;
    if (outcome === "retry") {
      const delay = schedule[attempt - 1];
      if (delay === undefined) outcome = "failed";
      else {
        const wait = Math.max(delay, Math.min(verdict.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
        nextAttemptAt = new Date(finishedAt.getTime() + wait);
      }
    }
    const status = outcome === "acknowledged" ? "delivered" : outcome === "failed" ? "failed" : "pending";
    const error = verdict.error === null ? null : clip(verdict.error);

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

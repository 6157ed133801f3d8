import { hostname } from "node:os";
import { type SQL, sql } from "drizzle-orm";
import { type RunMessage, RunMessageSchema } from "../../schema/runs.ts";
import { queueMessages } from "../../schema/tables/runs.ts";
import type { Db } from "../db/db.ts";
import type { Clock } from "../lib/clock.ts";
import { systemClock } from "../lib/clock.ts";
import { newId, newSequentialId } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import { silentLogger } from "../lib/logger.ts";
import { type DeadLetterHandler, LeaseLostError, type ReceivedMessage, type ReceiveOptions, type RunQueue } from "./queue.ts";

export interface PgQueueOptions {
  db: Db;
  /** Several logical queues can share the table; "runs" by default. */
  queue?: string;
  /** A message received more than this many times is dead-lettered instead of delivered (default 5). */
  maxReceives?: number;
  /** How often a long poll looks again while nothing is ready (default 250 ms). */
  pollIntervalMs?: number;
  /** Written to `lease_owner`; unique per queue instance by default (host, pid and a random id). */
  owner?: string;
  /** Only for message ids: every time that decides visibility is the database's now(). */
  clock?: Clock;
  onDeadLetter?: DeadLetterHandler;
  /** Where a failing `onDeadLetter` is reported. */
  logger?: Logger;
}

interface ClaimedRow {
  id: string;
  body: unknown;
  receive_count: number;
  /** available_at in microseconds since the epoch: the order the claim picked (a JS Date keeps only milliseconds). */
  available_us: string | number;
}

/** A receipt is `${id}:${receive_count}`: it names one delivery, so a stale one can be told apart. */
function parseReceipt(msg: ReceivedMessage): { id: string; receiveCount: number } {
  const at = msg.receipt.lastIndexOf(":");
  const receiveCount = Number(msg.receipt.slice(at + 1));
  if (at <= 0 || !Number.isInteger(receiveCount)) throw new LeaseLostError(msg.id, `malformed receipt ${msg.receipt}`);
  return { id: msg.receipt.slice(0, at), receiveCount };
}

const interval = (ms: number): SQL => sql`(${Math.max(0, Math.round(ms))}::double precision * interval '1 millisecond')`;

async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * The embedded run queue over the `queue_messages` table (PGlite, node-postgres or Neon). A receive
 * claims ready rows in one statement with FOR UPDATE SKIP LOCKED and leases them to this consumer;
 * every statement stands alone (no transaction spans a long poll, which PGlite's one connection
 * could not afford), and every visibility decision uses the database's now(), so processes agree.
 */
export function createPgQueue(opts: PgQueueOptions): RunQueue {
  const { db, onDeadLetter } = opts;
  const queue = opts.queue ?? "runs";
  const maxReceives = opts.maxReceives ?? 5;
  const pollIntervalMs = opts.pollIntervalMs ?? 250;
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? silentLogger;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${newId("q")}`;
  const closing = new AbortController();
  const t = queueMessages;

  /** Claims up to `max` ready rows under a lease of `leaseMs`; one autocommit statement. */
  async function claim(max: number, leaseMs: number): Promise<ClaimedRow[]> {
    const claimed = await rows<ClaimedRow>(
      db,
      sql`with picked as (
            select id from queue_messages
            where queue = ${queue} and dead_at is null and available_at <= now()
              and (lease_expires_at is null or lease_expires_at <= now())
            order by available_at, id
            limit ${max}
            for update skip locked
          )
          update queue_messages m
          set receive_count = m.receive_count + 1, lease_owner = ${owner}, lease_expires_at = now() + ${interval(leaseMs)}
          from picked where m.id = picked.id
          returning m.id, m.body, m.receive_count, (extract(epoch from m.available_at) * 1000000)::bigint as available_us`,
    );
    // UPDATE … RETURNING keeps no order: the rows are put back in the claim's. Sends a few
    // microseconds apart share a millisecond, and ids are random within one.
    const time = (r: ClaimedRow) => Number(r.available_us);
    return claimed
      .map((r) => ({ ...r, receive_count: Number(r.receive_count) }))
      .sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : 1));
  }

  /** The handler first (at least once), then the row: a handler that throws leaves it leased, to retry. */
  async function deadLetter(row: ClaimedRow, reason: string): Promise<void> {
    if (onDeadLetter) {
      try {
        await onDeadLetter(row.body, reason);
      } catch (err) {
        logger.error("queue dead-letter handler failed; the message will be retried", { id: row.id, reason, err });
        return;
      }
    }
    await db
      .update(t)
      .set({ deadAt: sql`now()`, deadReason: reason, leaseOwner: null, leaseExpiresAt: null })
      .where(sql`${t.id} = ${row.id} and ${t.leaseOwner} = ${owner} and ${t.receiveCount} = ${row.receive_count}`);
  }

  /** One claim: deliverable messages, and how many rows were dead-lettered (the claim used their slots). */
  async function receiveOnce(max: number, leaseMs: number): Promise<{ messages: ReceivedMessage[]; dead: number }> {
    const messages: ReceivedMessage[] = [];
    let dead = 0;
    for (const row of await claim(max, leaseMs)) {
      if (row.receive_count > maxReceives) {
        dead++;
        await deadLetter(row, "max receives exceeded");
        continue;
      }
      const parsed = RunMessageSchema.safeParse(row.body);
      if (!parsed.success) {
        dead++;
        await deadLetter(row, `invalid body: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
        continue;
      }
      messages.push({
        id: row.id,
        body: parsed.data,
        receiveCount: row.receive_count,
        receipt: `${row.id}:${row.receive_count}`,
      });
    }
    return { messages, dead };
  }

  return {
    description: `postgres (queue_messages, queue ${queue})`,

    async send(body: RunMessage, sendOpts: { delayMs?: number } = {}) {
      await db.insert(t).values({
        // Sequential: PGlite's now() has millisecond resolution, and messages sent within one
        // millisecond are received in the order they were sent (available_at, then id).
        id: newSequentialId("msg", clock.now().getTime()),
        queue,
        body,
        availableAt: sql`now() + ${interval(sendOpts.delayMs ?? 0)}`,
      });
    },

    async receive({ max, waitMs, leaseMs, signal }: ReceiveOptions) {
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      const limit = Math.max(1, Math.min(10, Math.floor(max)));
      const deadline = Date.now() + Math.max(0, waitMs);
      while (!stop.aborted) {
        const { messages, dead } = await receiveOnce(limit, leaseMs);
        // Claimed messages are returned even if the signal aborted meanwhile: they are leased now.
        if (messages.length > 0) return messages;
        if (dead > 0) continue; // dead-lettered rows took the slots; more may be ready
        const left = deadline - Date.now();
        if (left <= 0) break;
        await sleep(Math.min(pollIntervalMs, left), stop);
      }
      return [];
    },

    async extend(msg: ReceivedMessage, leaseMs: number) {
      const { id, receiveCount } = parseReceipt(msg);
      const updated = await db
        .update(t)
        .set({ leaseExpiresAt: sql`now() + ${interval(leaseMs)}` })
        .where(
          sql`${t.id} = ${id} and ${t.leaseOwner} = ${owner} and ${t.receiveCount} = ${receiveCount} and ${t.deadAt} is null`,
        )
        .returning({ id: t.id });
      if (updated.length === 0) throw new LeaseLostError(id);
    },

    async ack(msg: ReceivedMessage) {
      const { id, receiveCount } = parseReceipt(msg);
      const deleted = await db
        .delete(t)
        .where(sql`${t.id} = ${id} and ${t.leaseOwner} = ${owner} and ${t.receiveCount} = ${receiveCount}`)
        .returning({ id: t.id });
      if (deleted.length === 0) throw new LeaseLostError(id);
    },

    async release(msg: ReceivedMessage, delayMs: number) {
      const { id, receiveCount } = parseReceipt(msg);
      const updated = await db
        .update(t)
        .set({ leaseOwner: null, leaseExpiresAt: null, availableAt: sql`now() + ${interval(delayMs)}` })
        .where(
          sql`${t.id} = ${id} and ${t.leaseOwner} = ${owner} and ${t.receiveCount} = ${receiveCount} and ${t.deadAt} is null`,
        )
        .returning({ id: t.id });
      if (updated.length === 0) throw new LeaseLostError(id);
    },

    async close() {
      closing.abort();
    },
  };
}

/**
 * The run queue port (ARCHITECTURE.md): the edge sends, workers receive. Two adapters implement it:
 * Postgres (`pg-queue.ts`, the embedded default: FOR UPDATE SKIP LOCKED under a lease the consumer
 * extends) and AWS SQS (`sqs-queue.ts`: visibility timeout extended with ChangeMessageVisibility,
 * delete on success, a redrive policy dead-letters after `maxReceives`).
 *
 * Delivery is at-least-once: a message whose lease lapses (its consumer died) is delivered again,
 * so handlers must be idempotent. Bodies are checked with `RunMessageSchema` on receipt; a body that
 * fails the check is dead-lettered at once and never handed to the caller.
 */
import type { RunMessage } from "../../schema/runs.ts";

export interface ReceivedMessage {
  /** The adapter's message id (stable across redeliveries). */
  id: string;
  body: RunMessage;
  /** 1 on the first delivery; a redelivery after a lapsed lease counts up. */
  receiveCount: number;
  /** Opaque handle for extend/ack/release (SQS: the receipt handle of this delivery). */
  receipt: string;
}

export interface ReceiveOptions {
  /** At most this many messages (1 to 10). */
  max: number;
  /** Long-poll: wait up to this long for a first message (0 returns at once). */
  waitMs: number;
  /** How long the received messages stay invisible to other consumers unless extended. */
  leaseMs: number;
  signal?: AbortSignal;
}

export interface RunQueue {
  /** Short description for the start-up banner, e.g. "postgres (queue_messages)" or "sqs (https://…)". */
  readonly description: string;
  send(body: RunMessage, opts?: { delayMs?: number }): Promise<void>;
  receive(opts: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Heartbeat: keep the message invisible for another `leaseMs` from now. */
  extend(msg: ReceivedMessage, leaseMs: number): Promise<void>;
  /** Done: delete the message. */
  ack(msg: ReceivedMessage): Promise<void>;
  /** Give the message back, visible again after `delayMs` (0: at once). */
  release(msg: ReceivedMessage, delayMs: number): Promise<void>;
  close(): Promise<void>;
}

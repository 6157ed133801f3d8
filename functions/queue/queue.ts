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
  /**
   * Heartbeat: keep the message invisible for another `leaseMs` from now. Throws `LeaseLostError`
   * when this delivery is no longer the caller's (the lease lapsed and the message was delivered
   * again, or it is gone): the worker must stop treating the message as its own.
   */
  extend(msg: ReceivedMessage, leaseMs: number): Promise<void>;
  /**
   * Done: delete the message. Postgres refuses a stale delivery with `LeaseLostError` (the newer
   * delivery's consumer acks it); SQS, like AWS, may accept a stale receipt handle silently.
   */
  ack(msg: ReceivedMessage): Promise<void>;
  /** Give the message back, visible again after `delayMs` (0: at once). `LeaseLostError` when stale. */
  release(msg: ReceivedMessage, delayMs: number): Promise<void>;
  /** Stops in-flight long polls (they return []); the database or SQS client stays the caller's. */
  close(): Promise<void>;
}

/**
 * Called by an adapter for each message it dead-letters (a body that fails `RunMessageSchema`, or
 * one received more than `maxReceives` times), so that the caller can fail the run it names. `body`
 * is the parsed JSON (the raw string when it is not JSON). At least once: when the handler throws,
 * the message is not dead-lettered yet and the handler is called again on a later receive.
 */
export type DeadLetterHandler = (body: unknown, reason: string) => Promise<void>;

/** The delivery a consumer holds is no longer its own: its lease lapsed and the message moved on. */
export class LeaseLostError extends Error {
  readonly messageId: string;
  constructor(messageId: string, detail = "the lease lapsed and the message was delivered again, or it is gone") {
    super(`lease lost on message ${messageId}: ${detail}`);
    this.name = "LeaseLostError";
    this.messageId = messageId;
  }
}

/** A queue that refuses every call: for documentation builds and tests that never start a run. */
export function unavailableQueue(reason: string): RunQueue {
  const refuse = async (): Promise<never> => {
    throw new Error(`run queue unavailable: ${reason}`);
  };
  return {
    description: `unavailable (${reason})`,
    send: refuse,
    receive: refuse,
    extend: refuse,
    ack: refuse,
    release: refuse,
    close: async () => {},
  };
}

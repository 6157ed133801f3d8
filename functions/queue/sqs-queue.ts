import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { type RunMessage, RunMessageSchema } from "../../schema/runs.ts";
import type { Logger } from "../lib/logger.ts";
import { silentLogger } from "../lib/logger.ts";
import { type DeadLetterHandler, LeaseLostError, type ReceivedMessage, type ReceiveOptions, type RunQueue } from "./queue.ts";

export interface SqsQueueOptions {
  /** The caller's client (endpoint, region, credentials); `close()` leaves it open. */
  client: SQSClient;
  queueUrl: string;
  /** Where bad bodies and over-received messages are copied before they are deleted. */
  deadLetterQueueUrl?: string;
  /**
   * A message received more than this many times is dead-lettered by the adapter (so `onDeadLetter`
   * runs). Unset: no client-side check, only the queue's redrive policy (which calls no handler).
   */
  maxReceives?: number;
  onDeadLetter?: DeadLetterHandler;
  /** Where a failing dead-letter step is reported. */
  logger?: Logger;
}

/**
 * The RedrivePolicy queue attribute for an adapter configured with `maxReceives`: the server-side
 * backstop is set one receive later (`maxReceiveCount = maxReceives + 1`), so the adapter sees an
 * over-received message first and calls `onDeadLetter` (a message SQS moves by itself calls nothing).
 */
export function sqsRedrivePolicy(deadLetterTargetArn: string, maxReceives: number): string {
  return JSON.stringify({ deadLetterTargetArn, maxReceiveCount: String(maxReceives + 1) });
}

/** SQS caps: DelaySeconds ≤ 900, WaitTimeSeconds ≤ 20, VisibilityTimeout ≤ 43200 (12 h). */
const seconds = (ms: number, cap: number) => Math.min(cap, Math.max(0, Math.ceil(ms / 1000)));

/** A receipt handle that no longer names an in-flight delivery (its visibility lapsed, or it was deleted). */
function isStaleReceipt(err: unknown): boolean {
  const name = (err as { name?: unknown })?.name;
  const message = String((err as { message?: unknown })?.message ?? "");
  if (name === "ReceiptHandleIsInvalid" || name === "MessageNotInflight") return true;
  if (typeof name === "string" && /MessageNotInflight|ReceiptHandleIsInvalid/.test(name)) return true;
  return name === "InvalidParameterValue" && /receipt ?handle|not available for visibility/i.test(message);
}

function parseBody(raw: string | undefined): { ok: true; body: RunMessage } | { ok: false; body: unknown; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? "");
  } catch {
    return { ok: false, body: raw ?? "", reason: "invalid body: not JSON" };
  }
  const parsed = RunMessageSchema.safeParse(json);
  if (parsed.success) return { ok: true, body: parsed.data };
  return { ok: false, body: json, reason: `invalid body: ${parsed.error.issues.map((i) => i.message).join("; ")}` };
}

/** The run queue over AWS SQS (standard queue): visibility timeout as the lease, delete as the ack. */
export function createSqsQueue(opts: SqsQueueOptions): RunQueue {
  const { client, queueUrl, deadLetterQueueUrl, maxReceives, onDeadLetter } = opts;
  const logger = opts.logger ?? silentLogger;
  const closing = new AbortController();

  async function changeVisibility(msg: ReceivedMessage, ms: number): Promise<void> {
    try {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: msg.receipt,
          VisibilityTimeout: seconds(ms, 43_200),
        }),
      );
    } catch (err) {
      if (isStaleReceipt(err)) throw new LeaseLostError(msg.id);
      throw err;
    }
  }

  /**
   * Handler, then the DLQ copy, then the delete. Any step failing leaves the message in flight: it
   * comes back after its visibility timeout and is dead-lettered again (the handler runs at least once).
   */
  async function deadLetter(m: Message, body: unknown, reason: string): Promise<void> {
    try {
      if (onDeadLetter) await onDeadLetter(body, reason);
      if (deadLetterQueueUrl) {
        await client.send(
          new SendMessageCommand({
            QueueUrl: deadLetterQueueUrl,
            MessageBody: m.Body ?? "",
            MessageAttributes: {
              dead_reason: { DataType: "String", StringValue: reason.slice(0, 1000) },
              source_message_id: { DataType: "String", StringValue: m.MessageId ?? "unknown" },
            },
          }),
        );
      }
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
    } catch (err) {
      logger.error("queue dead-letter failed; the message will be retried", { id: m.MessageId, reason, err });
    }
  }

  return {
    description: `sqs (${queueUrl})`,

    async send(body: RunMessage, sendOpts: { delayMs?: number } = {}) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: seconds(sendOpts.delayMs ?? 0, 900),
        }),
      );
    },

    async receive({ max, waitMs, leaseMs, signal }: ReceiveOptions) {
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      if (stop.aborted) return [];
      let received: Message[];
      try {
        const out = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.max(1, Math.min(10, Math.floor(max))),
            WaitTimeSeconds: seconds(waitMs, 20),
            VisibilityTimeout: seconds(leaseMs, 43_200),
            MessageSystemAttributeNames: ["ApproximateReceiveCount"],
          }),
          { abortSignal: stop },
        );
        received = out.Messages ?? [];
      } catch (err) {
        if (stop.aborted) return [];
        throw err;
      }
      const messages: ReceivedMessage[] = [];
      for (const m of received) {
        const receiveCount = Number(m.Attributes?.ApproximateReceiveCount ?? "1");
        const parsed = parseBody(m.Body);
        if (maxReceives !== undefined && receiveCount > maxReceives) {
          await deadLetter(m, parsed.body, "max receives exceeded");
        } else if (!parsed.ok) {
          await deadLetter(m, parsed.body, parsed.reason);
        } else if (m.MessageId && m.ReceiptHandle) {
          messages.push({ id: m.MessageId, body: parsed.body, receiveCount, receipt: m.ReceiptHandle });
        }
      }
      return messages;
    },

    extend: (msg, leaseMs) => changeVisibility(msg, leaseMs),

    async ack(msg: ReceivedMessage) {
      try {
        await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: msg.receipt }));
      } catch (err) {
        if (isStaleReceipt(err)) throw new LeaseLostError(msg.id);
        throw err;
      }
    },

    release: (msg, delayMs) => changeVisibility(msg, delayMs),

    async close() {
      closing.abort();
    },
  };
}

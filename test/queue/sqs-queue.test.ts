import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaseLostError, type RunQueue } from "../../functions/queue/queue.ts";
import { createSqsQueue, type SqsQueueOptions, sqsRedrivePolicy } from "../../functions/queue/sqs-queue.ts";
import { runMessage } from "../../schema/runs.ts";
import { type Fauxqs, type FauxqsQueue, startFauxqsServer } from "../helpers/fauxqs.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The first element; fails the test when there is none. */
function one<T>(list: readonly T[]): T {
  const first = list[0];
  if (first === undefined) throw new Error("expected at least one element");
  return first;
}
const LONG = 30_000;

describe("SQS run queue (fauxqs)", () => {
  let fx: Fauxqs;
  beforeAll(async () => {
    fx = await startFauxqsServer();
  });
  afterAll(() => fx?.stop());

  /** A fresh queue + DLQ and an adapter over it; `deadLetters` collects onDeadLetter calls. */
  async function setup(opts: Partial<SqsQueueOptions> & { redriveMaxReceives?: number } = {}) {
    const q: FauxqsQueue = await fx.createQueue({ maxReceives: opts.redriveMaxReceives ?? opts.maxReceives ?? 5 });
    const deadLetters: { body: unknown; reason: string }[] = [];
    const queue: RunQueue = createSqsQueue({
      client: fx.client,
      queueUrl: q.queueUrl,
      deadLetterQueueUrl: q.deadLetterQueueUrl,
      onDeadLetter: async (body, reason) => {
        deadLetters.push({ body, reason });
      },
      ...opts,
    });
    const name = q.queueUrl.split("/").pop() ?? "";
    const counts = () => {
      const m = fx.server.inspectQueue(name)?.messages;
      return { ready: m?.ready.length, delayed: m?.delayed.length, inflight: m?.inflight.length };
    };
    const dlq = async () => {
      const out = await fx.client.send(
        new ReceiveMessageCommand({
          QueueUrl: q.deadLetterQueueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ["All"],
          VisibilityTimeout: 60,
        }),
      );
      return out.Messages ?? [];
    };
    return { q, queue, deadLetters, counts, dlq };
  }

  it("send, receive and ack", async () => {
    const { queue, counts } = await setup();
    expect(queue.description).toMatch(/^sqs \(http/);
    await queue.send(runMessage("run_1"));
    const got = await queue.receive({ max: 10, waitMs: 1000, leaseMs: LONG });
    expect(got).toHaveLength(1);
    const m = one(got);
    expect(m).toMatchObject({ body: runMessage("run_1"), receiveCount: 1 });
    expect(m.id).toBeTruthy();
    expect(m.receipt).toBeTruthy();
    expect(counts()).toEqual({ ready: 0, delayed: 0, inflight: 1 });
    await queue.ack(m);
    expect(counts()).toEqual({ ready: 0, delayed: 0, inflight: 0 });
    expect(await queue.receive({ max: 10, waitMs: 0, leaseMs: LONG })).toEqual([]);
  });

  it("receives up to max messages", async () => {
    const { queue } = await setup();
    for (let i = 0; i < 4; i++) await queue.send(runMessage(`run_${i}`));
    const got = await queue.receive({ max: 3, waitMs: 1000, leaseMs: LONG });
    expect(got).toHaveLength(3);
    const more = await queue.receive({ max: 3, waitMs: 1000, leaseMs: LONG });
    expect(more).toHaveLength(1);
    expect(new Set([...got, ...more].map((m) => m.body.run_id)).size).toBe(4);
  });

  it("a lapsed visibility timeout redelivers with receiveCount 2; the stale receipt cannot extend", async () => {
    const { queue } = await setup();
    await queue.send(runMessage("run_lapse"));
    const first = one(await queue.receive({ max: 1, waitMs: 1000, leaseMs: 1000 }));
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: 1000 })).toEqual([]);
    await sleep(1100);
    const second = one(await queue.receive({ max: 1, waitMs: 2000, leaseMs: LONG }));
    expect(second).toMatchObject({ id: first.id, receiveCount: 2, body: runMessage("run_lapse") });
    expect(second.receipt).not.toBe(first.receipt);
    await expect(queue.extend(first, 5000)).rejects.toBeInstanceOf(LeaseLostError);
    await queue.extend(second, 5000);
    await queue.ack(second);
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: 1000 })).toEqual([]);
  });

  it("extend keeps a message invisible past its original lease", async () => {
    const { queue } = await setup();
    await queue.send(runMessage("run_extend"));
    const m = one(await queue.receive({ max: 1, waitMs: 1000, leaseMs: 1000 }));
    await sleep(500);
    await queue.extend(m, 2000);
    await sleep(800); // past the original 1 s lease
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: 1000 })).toEqual([]);
    await queue.ack(m);
  });

  it("release with a delay makes the message visible again after it; release 0 at once", async () => {
    const { queue } = await setup();
    await queue.send(runMessage("run_release"));
    const m = one(await queue.receive({ max: 1, waitMs: 1000, leaseMs: LONG }));
    const released = Date.now();
    await queue.release(m, 1000);
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    await sleep(1050);
    const again = one(await queue.receive({ max: 1, waitMs: 2000, leaseMs: LONG }));
    expect(Date.now() - released).toBeGreaterThanOrEqual(1000);
    expect(again).toMatchObject({ id: m.id, receiveCount: 2 });
    await queue.release(again, 0);
    const third = one(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG }));
    expect(third).toMatchObject({ id: m.id, receiveCount: 3 });
    await queue.ack(third);
  });

  it("send with a delay is not received before it", async () => {
    const { queue } = await setup();
    const sent = Date.now();
    await queue.send(runMessage("run_delay"), { delayMs: 800 }); // rounded up to 1 s
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    await sleep(1050);
    const m = one(await queue.receive({ max: 1, waitMs: 2000, leaseMs: LONG }));
    expect(Date.now() - sent).toBeGreaterThanOrEqual(1000);
    expect(m.body).toEqual(runMessage("run_delay"));
  });

  it("a bad body goes to the DLQ and to onDeadLetter, never to the caller", async () => {
    const { q, queue, deadLetters, counts, dlq } = await setup();
    await fx.client.send(new SendMessageCommand({ QueueUrl: q.queueUrl, MessageBody: "not json" }));
    await fx.client.send(new SendMessageCommand({ QueueUrl: q.queueUrl, MessageBody: JSON.stringify({ v: 2, run_id: "r" }) }));
    await queue.send(runMessage("run_good"));
    const got: string[] = [];
    for (let i = 0; i < 5 && deadLetters.length + got.length < 3; i++) {
      for (const m of await queue.receive({ max: 10, waitMs: 500, leaseMs: LONG })) got.push(m.body.run_id);
    }
    expect(got).toEqual(["run_good"]);
    expect(deadLetters).toHaveLength(2);
    expect(deadLetters).toContainEqual({ body: "not json", reason: "invalid body: not JSON" });
    expect(deadLetters).toContainEqual({ body: { v: 2, run_id: "r" }, reason: expect.stringMatching(/^invalid body: /) });
    expect(counts()).toEqual({ ready: 0, delayed: 0, inflight: 1 }); // only run_good, not yet acked
    const dead = await dlq();
    expect(dead.map((m) => m.Body).sort()).toEqual(["not json", JSON.stringify({ v: 2, run_id: "r" })].sort());
    expect(one(dead).MessageAttributes?.dead_reason?.StringValue).toMatch(/^invalid body/);
  });

  it("a message received more than maxReceives times is dead-lettered by the adapter", async () => {
    const { queue, deadLetters, counts, dlq } = await setup({ maxReceives: 2 });
    await queue.send(runMessage("run_poison"));
    for (const n of [1, 2]) {
      const m = one(await queue.receive({ max: 1, waitMs: 1000, leaseMs: LONG }));
      expect(m.receiveCount).toBe(n);
      await queue.release(m, 0);
    }
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    expect(deadLetters).toEqual([{ body: runMessage("run_poison"), reason: "max receives exceeded" }]);
    expect(counts()).toEqual({ ready: 0, delayed: 0, inflight: 0 });
    const dead = await dlq();
    expect(dead.map((m) => m.Body)).toEqual([JSON.stringify(runMessage("run_poison"))]);
  });

  it("sqsRedrivePolicy: the server-side backstop is one receive after the adapter's maxReceives", async () => {
    expect(JSON.parse(sqsRedrivePolicy("arn:aws:sqs:us-east-1:000000000000:x-dlq", 3))).toEqual({
      deadLetterTargetArn: "arn:aws:sqs:us-east-1:000000000000:x-dlq",
      maxReceiveCount: "4",
    });
    // Without the adapter's check, the redrive policy alone moves the message (and calls no handler).
    const { queue, deadLetters, dlq } = await setup({ maxReceives: undefined, redriveMaxReceives: 1 });
    await queue.send(runMessage("run_backstop"));
    for (const n of [1, 2]) {
      const m = one(await queue.receive({ max: 1, waitMs: 1000, leaseMs: LONG }));
      expect(m.receiveCount).toBe(n);
      await queue.release(m, 0);
    }
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    expect(deadLetters).toEqual([]);
    expect((await dlq()).map((m) => m.Body)).toEqual([JSON.stringify(runMessage("run_backstop"))]);
  });

  it("an aborted signal ends a long poll quickly; close ends the ones in flight", async () => {
    const { queue } = await setup();
    const ac = new AbortController();
    let started = Date.now();
    const polling = queue.receive({ max: 1, waitMs: 20_000, leaseMs: LONG, signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    expect(await polling).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);

    started = Date.now();
    const closing = queue.receive({ max: 1, waitMs: 20_000, leaseMs: LONG });
    await sleep(200);
    await queue.close();
    expect(await closing).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a long poll returns as soon as a message is sent", async () => {
    const { queue } = await setup();
    const started = Date.now();
    const polling = queue.receive({ max: 1, waitMs: 10_000, leaseMs: LONG });
    await sleep(200);
    await queue.send(runMessage("run_wake"));
    const m = one(await polling);
    expect(m.body.run_id).toBe("run_wake");
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

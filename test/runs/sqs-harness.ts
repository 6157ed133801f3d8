import { GetQueueAttributesCommand, type Message, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { deadLetterFailsRun } from "../../containers/local/run-stack.ts";
import type { RunWorker } from "../../containers/worker/run-worker.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ReceivedMessage, RunQueue } from "../../functions/queue/queue.ts";
import { createSqsQueue } from "../../functions/queue/sqs-queue.ts";
import type { RunLifecycle } from "../../functions/runs/run-lifecycle.ts";
import { runs } from "../../schema/tables/index.ts";
import type { DriverCase, TestDatabase } from "../helpers/databases.ts";
import { type Fauxqs, type FauxqsQueue, startFauxqsServer } from "../helpers/fauxqs.ts";
import { type Json, loginBody, type RunHarness, startRunHarness } from "../helpers/run-harness.ts";

/**
 * Shared setup of the run tests over the SQS adapter: fauxqs (the SQS emulator), a harness whose
 * queue is the current test's SQS adapter (each test gets a fresh queue and DLQ, so none sees
 * another's messages), a recording SQS client, a worker on demand, and a raw SQS consumer next to it.
 */

export const MAX_RECEIVES = 3;
export const EMPTY = { visible: 0, notVisible: 0, delayed: 0 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** What an SQS run suite works with; the fields are set by the hooks, so read them inside tests only. */
export interface SqsSuite {
  fx: Fauxqs;
  h: RunHarness;
  /** A fresh account's key for each test. */
  key: string;
  /** Script errors of the current test (for sequence()). */
  errors: string[];
  /** The queue of the current test. */
  q: FauxqsQueue;
  /** SQS commands the adapter sent (name and input), through a recording client. */
  commands: { name: string; input: Json }[];
  /** Messages the adapter handed to the worker. */
  received: ReceivedMessage[];
  /** Starts a worker (heartbeat every 300 ms), stopped after the test. */
  startWorker(): RunWorker;
  /** Starts the login task with /run-async and returns its run id (checking it was accepted PENDING). */
  runAsync(): Promise<string>;
  /** The run through GET /v1/runs/:id. */
  getRun(runId: string): Promise<Json>;
  /** The run's row in the database. */
  runRow(runId: string): Promise<typeof runs.$inferSelect | undefined>;
  /** The queue's approximate message counts. */
  attributes(queueUrl: string): Promise<typeof EMPTY>;
  /** Waits until the queue holds nothing (the worker deleted every message it took). */
  drained(queueUrl: string): Promise<typeof EMPTY>;
  /** A consumer that is not the worker: receives with a short visibility timeout and never deletes. */
  rawReceive(visibilityTimeoutS: number): Promise<Message>;
  /** What the DLQ holds now (each look hides what it received for 60 s). */
  deadLetters(): Promise<Message[]>;
}

/** Registers the hooks of an SQS run suite in the describe block it is called from. */
export function useSqsSuite(open: DriverCase["open"]): SqsSuite {
  let database: TestDatabase;
  let worker: RunWorker | null = null;
  let current: RunQueue | null = null;
  const owner = new WeakMap<ReceivedMessage, RunQueue>();
  let deps: { lifecycle: RunLifecycle; logger: Logger } | null = null;

  const cur = (): RunQueue => {
    if (!current) throw new Error("no queue yet");
    return current;
  };
  const of = (msg: ReceivedMessage): RunQueue => owner.get(msg) ?? cur();

  const s = {
    errors: [] as string[],
    commands: [] as SqsSuite["commands"],
    received: [] as ReceivedMessage[],
    startWorker() {
      worker = s.h.startWorker({ heartbeatMs: 300 });
      return worker;
    },
    async runAsync() {
      const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-async", loginBody(s.h));
      expect(res.status).toBe(200);
      const accepted = (await res.json()) as Json;
      expect(accepted.status).toBe("PENDING");
      return accepted.run_id as string;
    },
    getRun: async (runId) => (await (await s.h.ctx.call(s.key, `/v1/runs/${runId}`)).json()) as Json,
    runRow: async (runId) => (await s.h.db.select().from(runs).where(eq(runs.id, runId)))[0],
    async attributes(queueUrl) {
      const out = await s.fx.client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: [
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
          ],
        }),
      );
      const a = out.Attributes ?? {};
      return {
        visible: Number(a.ApproximateNumberOfMessages),
        notVisible: Number(a.ApproximateNumberOfMessagesNotVisible),
        delayed: Number(a.ApproximateNumberOfMessagesDelayed),
      };
    },
    drained: (queueUrl) =>
      until(`${queueUrl} to drain`, async () => {
        const a = await s.attributes(queueUrl);
        return a.visible + a.notVisible + a.delayed === 0 && a;
      }),
    async rawReceive(visibilityTimeoutS) {
      const out = await s.fx.client.send(
        new ReceiveMessageCommand({
          QueueUrl: s.q.queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 2,
          VisibilityTimeout: visibilityTimeoutS,
          MessageSystemAttributeNames: ["ApproximateReceiveCount"],
        }),
      );
      const m = out.Messages?.[0];
      if (!m) throw new Error("the raw consumer received nothing");
      return m;
    },
    async deadLetters() {
      const out = await s.fx.client.send(
        new ReceiveMessageCommand({
          QueueUrl: s.q.deadLetterQueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          VisibilityTimeout: 60,
          MessageAttributeNames: ["All"],
        }),
      );
      return out.Messages ?? [];
    },
  } as SqsSuite;

  /** What the harness (the app and the workers) uses: the current test's SQS adapter. */
  const delegate: RunQueue = {
    get description() {
      return cur().description;
    },
    send: (body, o) => cur().send(body, o),
    async receive(o) {
      const queue = cur();
      const got = await queue.receive(o);
      for (const m of got) {
        owner.set(m, queue);
        s.received.push(m);
      }
      return got;
    },
    extend: (msg, ms) => of(msg).extend(msg, ms),
    ack: (msg) => of(msg).ack(msg),
    release: (msg, ms) => of(msg).release(msg, ms),
    close: async () => current?.close(),
  };

  beforeAll(async () => {
    s.fx = await startFauxqsServer();
    database = await open();
    s.h = await startRunHarness(database.db, {
      heartbeatMs: 300,
      queue: (d) => {
        deps = d;
        return delegate;
      },
    });
  });
  afterAll(async () => {
    await s.h?.close();
    await database?.dispose();
    await s.fx?.stop();
  });
  beforeEach(async () => {
    s.errors = [];
    ({ key: s.key } = await s.h.newKey());
    s.commands.length = 0;
    s.received.length = 0;
    await current?.close();
    s.q = await s.fx.createQueue({ maxReceives: MAX_RECEIVES });
    const recording = {
      send: (command: { constructor: { name: string }; input: Json }, options?: unknown) => {
        s.commands.push({ name: command.constructor.name, input: command.input });
        // biome-ignore lint/suspicious/noExplicitAny: forwarding any SQS command
        return s.fx.client.send(command as any, options as any);
      },
    } as unknown as SQSClient;
    if (!deps) throw new Error("the harness did not ask for a queue");
    current = createSqsQueue({
      client: recording,
      queueUrl: s.q.queueUrl,
      deadLetterQueueUrl: s.q.deadLetterQueueUrl,
      maxReceives: MAX_RECEIVES,
      onDeadLetter: deadLetterFailsRun(deps),
      logger: deps.logger,
    });
  });
  afterEach(async () => {
    await worker?.stop(5000);
    worker = null;
  });
  return s;
}

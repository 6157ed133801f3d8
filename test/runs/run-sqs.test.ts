import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { deadLetterFailsRun } from "../../containers/local/run-stack.ts";
import type { RunWorker } from "../../containers/worker/run-worker.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ReceivedMessage, RunQueue } from "../../functions/queue/queue.ts";
import { createSqsQueue } from "../../functions/queue/sqs-queue.ts";
import type { RunNotifier } from "../../functions/runs/run-notifier.ts";
import { runMessage } from "../../schema/runs.ts";
import { runs } from "../../schema/tables/index.ts";
import { sequence } from "../agent/loop/harness.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type Fauxqs, type FauxqsQueue, startFauxqsServer } from "../helpers/fauxqs.ts";
import { type Json, loginSteps, type RunHarness, startRunHarness } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2 and 3.1 over the SQS adapter: whole runs through the app, fauxqs (the SQS emulator), an
 * in-process worker and real Chromium. The worker's lease is the visibility timeout (extended with
 * ChangeMessageVisibility), its ack the delete; redeliveries, duplicates, bad bodies and
 * over-received messages are exercised with a raw SQS consumer next to the worker.
 */

const login = loginSteps();

const MAX_RECEIVES = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))(
  "runs over the SQS queue (fauxqs) on $driver",
  ({ open }) => {
    let fx: Fauxqs;
    let database: TestDatabase;
    let h: RunHarness;
    let key: string;
    let errors: string[];
    let worker: RunWorker | null = null;

    /** SQS commands the adapter sent (name and input), through a recording client. */
    const commands: { name: string; input: Json }[] = [];
    /** Messages the adapter handed to the worker. */
    const received: ReceivedMessage[] = [];
    /** The queue of the current test: each test gets a fresh queue and DLQ, so none sees another's messages. */
    let q: FauxqsQueue;
    let current: RunQueue | null = null;
    const owner = new WeakMap<ReceivedMessage, RunQueue>();
    let deps: { notifier: RunNotifier; publicUrl: () => string; logger: Logger } | null = null;

    const cur = (): RunQueue => {
      if (!current) throw new Error("no queue yet");
      return current;
    };
    const of = (msg: ReceivedMessage): RunQueue => owner.get(msg) ?? cur();
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
          received.push(m);
        }
        return got;
      },
      extend: (msg, ms) => of(msg).extend(msg, ms),
      ack: (msg) => of(msg).ack(msg),
      release: (msg, ms) => of(msg).release(msg, ms),
      close: async () => current?.close(),
    };

    beforeAll(async () => {
      fx = await startFauxqsServer();
      database = await open();
      h = await startRunHarness(database.db, {
        heartbeatMs: 300,
        queue: (d) => {
          deps = d;
          return delegate;
        },
      });
    });
    afterAll(async () => {
      await h?.close();
      await database?.dispose();
      await fx?.stop();
    });
    beforeEach(async () => {
      errors = [];
      ({ key } = await h.newKey());
      commands.length = 0;
      received.length = 0;
      await current?.close();
      q = await fx.createQueue({ maxReceives: MAX_RECEIVES });
      const recording = {
        send: (command: { constructor: { name: string }; input: Json }, options?: unknown) => {
          commands.push({ name: command.constructor.name, input: command.input });
          // biome-ignore lint/suspicious/noExplicitAny: forwarding any SQS command
          return fx.client.send(command as any, options as any);
        },
      } as unknown as SQSClient;
      if (!deps) throw new Error("the harness did not ask for a queue");
      current = createSqsQueue({
        client: recording,
        queueUrl: q.queueUrl,
        deadLetterQueueUrl: q.deadLetterQueueUrl,
        maxReceives: MAX_RECEIVES,
        onDeadLetter: deadLetterFailsRun({ db: database.db, ...deps }),
        logger: deps.logger,
      });
    });
    afterEach(async () => {
      await worker?.stop(5000);
      worker = null;
    });

    const startWorker = () => {
      worker = h.startWorker({ heartbeatMs: 300 });
      return worker;
    };

    const body = (extra: Json = {}) => ({ url: `${h.site.url}/login`, goal: "Sign in and tell me the greeting", ...extra });

    async function runAsync(): Promise<string> {
      const res = await h.ctx.postJson(key, "/v1/automation/run-async", body());
      expect(res.status).toBe(200);
      const accepted = (await res.json()) as Json;
      expect(accepted.status).toBe("PENDING");
      return accepted.run_id as string;
    }

    const getRun = async (runId: string): Promise<Json> => (await (await h.ctx.call(key, `/v1/runs/${runId}`)).json()) as Json;
    const runRow = async (runId: string) => (await h.db.select().from(runs).where(eq(runs.id, runId)))[0];

    async function attributes(queueUrl: string) {
      const out = await fx.client.send(
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
    }
    const EMPTY = { visible: 0, notVisible: 0, delayed: 0 };
    /** Waits until the queue holds nothing (the worker deleted every message it took). */
    const drained = (queueUrl: string) =>
      until(`${queueUrl} to drain`, async () => {
        const a = await attributes(queueUrl);
        return a.visible + a.notVisible + a.delayed === 0 && a;
      });

    /** A consumer that is not the worker: receives with a short visibility timeout and never deletes. */
    async function rawReceive(visibilityTimeoutS: number): Promise<Message> {
      const out = await fx.client.send(
        new ReceiveMessageCommand({
          QueueUrl: q.queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 2,
          VisibilityTimeout: visibilityTimeoutS,
          MessageSystemAttributeNames: ["ApproximateReceiveCount"],
        }),
      );
      const m = out.Messages?.[0];
      if (!m) throw new Error("the raw consumer received nothing");
      return m;
    }

    async function deadLetters(): Promise<Message[]> {
      const out = await fx.client.send(
        new ReceiveMessageCommand({
          QueueUrl: q.deadLetterQueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          VisibilityTimeout: 60,
          MessageAttributeNames: ["All"],
        }),
      );
      return out.Messages ?? [];
    }

    it("a /run-async run completes through SQS: received, heartbeated with ChangeMessageVisibility, deleted", async () => {
      h.model.setScript(sequence(login, errors));
      const w = startWorker();
      const runId = await runAsync();
      const row = await h.ctx.runs.service.waitTerminal(runId, 60_000);
      expect(errors).toEqual([]);
      expect(row.status).toBe("COMPLETED");
      expect(await getRun(runId)).toMatchObject({
        status: "COMPLETED",
        result: { greeting: "Welcome, Ada", account: 4711 },
        error: null,
        steps: 4,
      });
      expect(row.attempts).toBe(1);
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
      await until("the worker to finish", async () => w.inflight() === 0);

      expect(received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([[runId, 1]]);
      const names = commands.map((c) => c.name);
      expect(names.filter((n) => n === "SendMessageCommand")).toHaveLength(1);
      expect(commands.find((c) => c.name === "SendMessageCommand")?.input.MessageBody).toBe(JSON.stringify(runMessage(runId)));
      // The lease: received with the worker's 5 s visibility, then extended while the agent worked.
      const receive = commands.find((c) => c.name === "ReceiveMessageCommand");
      expect(receive?.input.VisibilityTimeout).toBe(5);
      const receipt = received[0]?.receipt;
      const heartbeats = commands.filter((c) => c.name === "ChangeMessageVisibilityCommand");
      expect(heartbeats.length).toBeGreaterThan(0);
      for (const hb of heartbeats) expect(hb.input).toMatchObject({ ReceiptHandle: receipt, VisibilityTimeout: 5 });
      const deletes = commands.filter((c) => c.name === "DeleteMessageCommand");
      expect(deletes.map((d) => d.input.ReceiptHandle)).toEqual([receipt]);
      // The delete comes after the last heartbeat.
      expect(names.lastIndexOf("DeleteMessageCommand")).toBeGreaterThan(names.lastIndexOf("ChangeMessageVisibilityCommand"));
      expect(await deadLetters()).toEqual([]);
    });

    it("a message taken by a consumer that died before starting the run comes back and the run completes", async () => {
      h.model.setScript(sequence(login, errors));
      const runId = await runAsync();
      const taken = await rawReceive(1);
      expect(JSON.parse(taken.Body ?? "")).toEqual(runMessage(runId));
      expect(taken.Attributes?.ApproximateReceiveCount).toBe("1");
      expect(await attributes(q.queueUrl)).toMatchObject({ visible: 0, notVisible: 1 });
      // The dead consumer never marked the run.
      expect(await runRow(runId)).toMatchObject({ status: "PENDING", attempts: 0 });

      startWorker();
      const row = await h.ctx.runs.service.waitTerminal(runId, 60_000);
      expect(errors).toEqual([]);
      expect(row.status).toBe("COMPLETED");
      expect(row.attempts).toBe(1);
      expect(received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([[runId, 2]]);
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
      expect(await deadLetters()).toEqual([]);
    });

    it("a duplicate message for a terminal run is acknowledged and changes nothing", async () => {
      h.model.setScript(sequence(login, errors));
      startWorker();
      const runId = await runAsync();
      expect((await h.ctx.runs.service.waitTerminal(runId, 60_000)).status).toBe("COMPLETED");
      await drained(q.queueUrl);
      const before = await runRow(runId);
      const getBefore = await getRun(runId);
      const turns = h.model.requests.length;

      await fx.client.send(new SendMessageCommand({ QueueUrl: q.queueUrl, MessageBody: JSON.stringify(runMessage(runId)) }));
      await until("the duplicate to be received", async () => received.length === 2);
      expect(received.map((m) => [m.body.run_id, m.receiveCount])).toEqual([
        [runId, 1],
        [runId, 1],
      ]);
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
      expect(await runRow(runId)).toEqual(before);
      expect(await getRun(runId)).toEqual(getBefore);
      expect(h.model.requests.length).toBe(turns);
      expect(await deadLetters()).toEqual([]);
    });

    it("malformed bodies go to the DLQ and the worker keeps running", async () => {
      startWorker();
      for (const bad of ["not json", JSON.stringify({ v: 1, type: "run.execute" })]) {
        await fx.client.send(new SendMessageCommand({ QueueUrl: q.queueUrl, MessageBody: bad }));
      }
      // Each look at the DLQ hides what it received for 60 s: collect across looks.
      const dead: Message[] = [];
      await until("both bad bodies in the DLQ", async () => {
        dead.push(...(await deadLetters()));
        return dead.length >= 2;
      });
      expect(dead).toHaveLength(2);
      const byBody = new Map(dead.map((m) => [m.Body, m.MessageAttributes?.dead_reason?.StringValue]));
      expect(byBody.get("not json")).toBe("invalid body: not JSON");
      expect(byBody.get(JSON.stringify({ v: 1, type: "run.execute" }))).toMatch(/^invalid body: /);
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
      expect(received).toEqual([]);

      // The same worker still runs runs.
      h.model.setScript(sequence(login, errors));
      const runId = await runAsync();
      const row = await h.ctx.runs.service.waitTerminal(runId, 60_000);
      expect(errors).toEqual([]);
      expect(row.status).toBe("COMPLETED");
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
    });

    it(`a message received more than ${MAX_RECEIVES} times is dead-lettered and its run fails SERVICE_BUSY`, async () => {
      const turns = h.model.requests.length;
      const runId = await runAsync();
      for (let n = 1; n <= MAX_RECEIVES; n++) {
        const m = await rawReceive(0);
        expect(m.Attributes?.ApproximateReceiveCount).toBe(String(n));
      }
      startWorker();
      const row = await h.ctx.runs.service.waitTerminal(runId, 30_000);
      expect(row.status).toBe("FAILED");
      const run = await getRun(runId);
      expect(run).toMatchObject({
        status: "FAILED",
        result: null,
        started_at: null,
        steps: 0,
        error: { code: "SERVICE_BUSY", message: expect.stringMatching(/max receives exceeded/) },
      });
      // The worker never got it: the adapter dead-lettered it on the fourth receive.
      expect(received).toEqual([]);
      expect(h.model.requests.length).toBe(turns);
      const dead = await deadLetters();
      expect(dead.map((m) => [m.Body, m.MessageAttributes?.dead_reason?.StringValue])).toEqual([
        [JSON.stringify(runMessage(runId)), "max receives exceeded"],
      ]);
      expect(await drained(q.queueUrl)).toEqual(EMPTY);
    });
  },
);

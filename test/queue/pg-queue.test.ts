import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { newId } from "../../functions/lib/ids.ts";
import { createPgQueue, type PgQueueOptions } from "../../functions/queue/pg-queue.ts";
import { LeaseLostError, type ReceivedMessage, type RunQueue } from "../../functions/queue/queue.ts";
import { runMessage } from "../../schema/runs.ts";
import { queueMessages } from "../../schema/tables/runs.ts";
import { createPostgresDatabase, driverCases, type TestDatabase } from "../helpers/databases.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The first element; fails the test when there is none. */
function one<T>(list: readonly T[]): T {
  const first = list[0];
  if (first === undefined) throw new Error("expected at least one element");
  return first;
}
const LONG = 30_000;

describe.each(driverCases())("Postgres run queue on $driver", ({ driver, open }) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db?.dispose());

  /** A queue of its own name (tests share the table) and the onDeadLetter calls it made. */
  function setup(opts: Partial<PgQueueOptions> = {}) {
    const name = newId("tq");
    const deadLetters: { body: unknown; reason: string }[] = [];
    const make = (more: Partial<PgQueueOptions> = {}): RunQueue =>
      createPgQueue({
        db: db.db,
        queue: name,
        pollIntervalMs: 50,
        onDeadLetter: async (body, reason) => {
          deadLetters.push({ body, reason });
        },
        ...opts,
        ...more,
      });
    return { name, queue: make(), make, deadLetters };
  }

  const row = async (id: string) => (await db.db.select().from(queueMessages).where(eq(queueMessages.id, id)))[0];
  const rowsOf = (name: string) => db.db.select().from(queueMessages).where(eq(queueMessages.queue, name));

  it("send, receive and ack", async () => {
    const { name, queue } = setup();
    expect(queue.description).toMatch(/^postgres \(queue_messages/);
    await queue.send(runMessage("run_1"));
    const got = await queue.receive({ max: 10, waitMs: 0, leaseMs: LONG });
    expect(got).toHaveLength(1);
    const m = one(got);
    expect(m).toMatchObject({ body: runMessage("run_1"), receiveCount: 1, receipt: `${m.id}:1` });
    expect(m.id).toMatch(/^msg_/);
    const stored = await row(m.id);
    if (!stored) throw new Error("no row");
    expect(stored).toMatchObject({ queue: name, receiveCount: 1, deadAt: null });
    expect(stored.leaseOwner).toBeTruthy();
    expect(stored.leaseExpiresAt?.getTime()).toBeGreaterThan(Date.now() + LONG - 5000);
    expect(await queue.receive({ max: 10, waitMs: 0, leaseMs: LONG })).toEqual([]);
    await queue.ack(m);
    expect(await row(m.id)).toBeUndefined();
    await expect(queue.ack(m)).rejects.toBeInstanceOf(LeaseLostError);
  });

  it("receives up to max, oldest first; other queues' messages are not seen", async () => {
    const { queue } = setup();
    const other = setup().queue;
    await other.send(runMessage("run_other"));
    for (let i = 0; i < 4; i++) await queue.send(runMessage(`run_${i}`), { delayMs: 0 });
    const got = await queue.receive({ max: 3, waitMs: 0, leaseMs: LONG });
    expect(got.map((m) => m.body.run_id)).toEqual(["run_0", "run_1", "run_2"]);
    const more = await queue.receive({ max: 3, waitMs: 0, leaseMs: LONG });
    expect(more.map((m) => m.body.run_id)).toEqual(["run_3"]);
    expect((await other.receive({ max: 10, waitMs: 0, leaseMs: LONG })).map((m) => m.body.run_id)).toEqual(["run_other"]);
  });

  it("a lapsed lease redelivers (receiveCount 2); the stale receipt is refused, the new one works", async () => {
    const { make } = setup();
    const a = make();
    const b = make();
    await a.send(runMessage("run_lapse"));
    const first = one(await a.receive({ max: 1, waitMs: 0, leaseMs: 300 }));
    expect(await b.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    await sleep(350);
    const second = one(await b.receive({ max: 1, waitMs: 1000, leaseMs: LONG }));
    expect(second).toMatchObject({ id: first.id, receiveCount: 2, receipt: `${first.id}:2`, body: runMessage("run_lapse") });
    await expect(a.extend(first, LONG)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(a.ack(first)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(a.release(first, 0)).rejects.toBeInstanceOf(LeaseLostError);
    // The same consumer re-receiving does not make an old receipt valid either.
    const self = make();
    await self.send(runMessage("run_self"));
    const s1 = one(await self.receive({ max: 1, waitMs: 0, leaseMs: 200 }));
    await sleep(250);
    const s2 = one(await self.receive({ max: 1, waitMs: 1000, leaseMs: LONG }));
    expect(s2.receiveCount).toBe(2);
    await expect(self.extend(s1, LONG)).rejects.toBeInstanceOf(LeaseLostError);
    await self.ack(s2);

    expect(await row(second.id)).toBeDefined();
    await b.extend(second, LONG);
    await b.ack(second);
    expect(await row(second.id)).toBeUndefined();
  });

  it("extend keeps a message invisible past its original lease", async () => {
    const { queue, make } = setup();
    await queue.send(runMessage("run_extend"));
    const m = one(await queue.receive({ max: 1, waitMs: 0, leaseMs: 400 }));
    await sleep(200);
    await queue.extend(m, 1000);
    await sleep(400); // past the original lease
    expect(await make().receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    await queue.ack(m);
  });

  it("release: visible again after the delay (0: at once); the receipt is spent", async () => {
    const { queue } = setup();
    await queue.send(runMessage("run_release"));
    const m = one(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG }));
    const released = Date.now();
    await queue.release(m, 500);
    expect(await row(m.id)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    const again = one(await queue.receive({ max: 1, waitMs: 3000, leaseMs: LONG }));
    expect(Date.now() - released).toBeGreaterThanOrEqual(450);
    expect(again).toMatchObject({ id: m.id, receiveCount: 2 });
    await expect(queue.ack(m)).rejects.toBeInstanceOf(LeaseLostError);
    await queue.release(again, 0);
    const third = one(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG }));
    expect(third).toMatchObject({ id: m.id, receiveCount: 3 });
    await queue.ack(third);
  });

  it("send with a delay is not received before it", async () => {
    const { queue } = setup();
    const sent = Date.now();
    await queue.send(runMessage("run_delay"), { delayMs: 500 });
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG })).toEqual([]);
    const m = one(await queue.receive({ max: 1, waitMs: 3000, leaseMs: LONG }));
    expect(Date.now() - sent).toBeGreaterThanOrEqual(450);
    expect(m.body).toEqual(runMessage("run_delay"));
  });

  it("a message received more than maxReceives times is dead-lettered and reported", async () => {
    const { name, queue, deadLetters } = setup({ maxReceives: 2 });
    await queue.send(runMessage("run_poison"));
    for (const n of [1, 2]) {
      const got = await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG });
      expect(got.map((m) => [m.body.run_id, m.receiveCount])).toEqual([["run_poison", n]]);
      await queue.release(one(got), 0);
    }
    await queue.send(runMessage("run_fine")); // behind the released poison message
    // The third claim takes the poison message's slot; the adapter moves on to the next one.
    const got = await queue.receive({ max: 1, waitMs: 0, leaseMs: LONG });
    expect(got.map((m) => m.body.run_id)).toEqual(["run_fine"]);
    expect(deadLetters).toEqual([{ body: runMessage("run_poison"), reason: "max receives exceeded" }]);
    const dead = (await rowsOf(name)).filter((r) => r.deadAt);
    expect(dead).toHaveLength(1);
    expect(one(dead)).toMatchObject({ deadReason: "max receives exceeded", leaseOwner: null, body: runMessage("run_poison") });
    await queue.ack(one(got));
    expect(await queue.receive({ max: 10, waitMs: 0, leaseMs: LONG })).toEqual([]);
  });

  it("a body that fails the schema is dead-lettered at once and never returned", async () => {
    const { name, queue, deadLetters } = setup();
    await db.db.insert(queueMessages).values({ id: newId("msg"), queue: name, body: { v: 2, run_id: "x" } });
    await queue.send(runMessage("run_good"));
    const got = await queue.receive({ max: 10, waitMs: 0, leaseMs: LONG });
    expect(got.map((m) => m.body.run_id)).toEqual(["run_good"]);
    expect(deadLetters).toEqual([{ body: { v: 2, run_id: "x" }, reason: expect.stringMatching(/^invalid body: /) }]);
    const dead = (await rowsOf(name)).filter((r) => r.deadAt);
    expect(dead.map((r) => r.deadReason)).toEqual([one(deadLetters).reason]);
  });

  it("an onDeadLetter that throws leaves the message to be dead-lettered on a later receive", async () => {
    let calls = 0;
    const { name, queue } = setup({
      onDeadLetter: async () => {
        calls++;
        if (calls === 1) throw new Error("database down");
      },
    });
    await db.db.insert(queueMessages).values({ id: newId("msg"), queue: name, body: "garbage" });
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: 200 })).toEqual([]);
    expect(calls).toBe(1);
    expect(one(await rowsOf(name)).deadAt).toBeNull();
    await sleep(250);
    expect(await queue.receive({ max: 1, waitMs: 0, leaseMs: 200 })).toEqual([]);
    expect(calls).toBe(2);
    expect(one(await rowsOf(name)).deadAt).toBeInstanceOf(Date);
  });

  it("a long poll returns when a message arrives; abort and close end it quickly", async () => {
    const { queue } = setup();
    let started = Date.now();
    const polling = queue.receive({ max: 1, waitMs: 10_000, leaseMs: LONG });
    await sleep(150);
    await queue.send(runMessage("run_wake"));
    expect((await polling).map((m) => m.body.run_id)).toEqual(["run_wake"]);
    expect(Date.now() - started).toBeLessThan(2000);

    const ac = new AbortController();
    started = Date.now();
    const aborted = queue.receive({ max: 1, waitMs: 10_000, leaseMs: LONG, signal: ac.signal });
    setTimeout(() => ac.abort(), 150);
    expect(await aborted).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);

    // While a long poll waits, the (single-connection) database stays usable.
    const waiting = queue.receive({ max: 1, waitMs: 10_000, leaseMs: LONG });
    await sleep(100);
    expect(await rowsOf("nobody")).toEqual([]);
    started = Date.now();
    await queue.close();
    expect(await waiting).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await queue.receive({ max: 1, waitMs: 10_000, leaseMs: LONG })).toEqual([]);
  });

  it("two concurrent consumers never receive the same message (SKIP LOCKED)", async () => {
    // On real Postgres each consumer has a pool of its own (separate connections).
    if (driver !== "pg") return drain(db.db, db.db);
    const created = await createPostgresDatabase({ fromTemplate: true });
    const one = await openDatabase({ driver: "pg", url: created.url });
    const two = await openDatabase({ driver: "pg", url: created.url });
    try {
      await drain(one.db, two.db);
    } finally {
      await one.close();
      await two.close();
      await created.drop();
    }

    async function drain(dbA: Db, dbB: Db) {
      const name = newId("tq");
      const a = createPgQueue({ db: dbA, queue: name, pollIntervalMs: 20 });
      const b = createPgQueue({ db: dbB, queue: name, pollIntervalMs: 20 });
      const total = 60;
      await Promise.all(Array.from({ length: total }, (_, i) => (i % 2 ? a : b).send(runMessage(`run_${i}`))));
      const consume = async (q: RunQueue, into: ReceivedMessage[]) => {
        for (let idle = 0; idle < 3; ) {
          const got = await q.receive({ max: 4, waitMs: 0, leaseMs: LONG });
          if (got.length === 0) {
            idle++;
            await sleep(10);
            continue;
          }
          idle = 0;
          into.push(...got);
        }
      };
      const gotA: ReceivedMessage[] = [];
      const gotB: ReceivedMessage[] = [];
      await Promise.all([consume(a, gotA), consume(b, gotB), consume(a, gotA), consume(b, gotB)]);
      const ids = [...gotA, ...gotB].map((m) => m.body.run_id);
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);
      expect([...gotA, ...gotB].every((m) => m.receiveCount === 1)).toBe(true);
      await Promise.all([...gotA.map((m) => a.ack(m)), ...gotB.map((m) => b.ack(m))]);
      expect(await dbA.select().from(queueMessages).where(eq(queueMessages.queue, name))).toEqual([]);
    }
  });
});

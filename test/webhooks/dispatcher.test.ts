import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createWebhookDispatcher,
  DEFAULT_RETRY_SCHEDULE,
  type WebhookDispatcherOptions,
} from "../../containers/webhooks/dispatcher.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { getOrCreateWebhookSecret } from "../../functions/webhooks/webhook-secret.service.ts";
import { accounts, runs, webhookAttempts, webhookDeliveries } from "../../schema/tables/index.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { makeTestPki, type Receiver, type Reply, startReceiver, type TestPki } from "./receiver.ts";

const ACCOUNT = "acct_hooks";
const RUN = "run_hooks";
const payload = { type: "run.completed", data: { run_id: RUN, status: "COMPLETED", result: { answer: "ünïcødé ✓" } } };

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
});

/** A clock that tests can move forward, so retries are due without waiting. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => {
      offset += ms;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(driverCases(["pglite", "pg"]))("webhook dispatcher ($driver)", ({ open }) => {
  let t: TestDatabase;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await open();
    await t.db.insert(accounts).values({ id: ACCOUNT, plan: "free" });
    await t.db.insert(runs).values({
      id: RUN,
      accountId: ACCOUNT,
      keyId: "key_1",
      keyScope: "api",
      entry: "async",
      status: "COMPLETED",
      request: { url: "https://example.com", goal: "x" },
    });
  });
  afterAll(() => t?.dispose());
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  async function receiver(reply: (n: number) => Reply): Promise<Receiver> {
    const r = await startReceiver(pki, reply);
    receivers.push(r);
    return r;
  }

  function dispatcher(r: Receiver | null, extra: Partial<WebhookDispatcherOptions> = {}) {
    return createWebhookDispatcher({
      db: t.db,
      logger: silentLogger,
      allowPrivateHosts: r ? [{ host: "127.0.0.1", port: r.port }] : [],
      ca: pki.caCert,
      schedule: [50, 100],
      timeoutMs: 2000,
      ...extra,
    });
  }

  async function enqueue(url: string): Promise<string> {
    const id = `msg_${randomBytes(8).toString("hex")}`;
    await t.db.insert(webhookDeliveries).values({ id, runId: RUN, accountId: ACCOUNT, url, eventType: "run.completed", payload });
    return id;
  }

  const delivery = async (id: string) => {
    const [row] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    if (!row) throw new Error(`no delivery ${id}`);
    return row;
  };
  const attempts = (id: string) =>
    t.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, id)).orderBy(asc(webhookAttempts.attempt));

  /** Runs the dispatcher until the delivery leaves `pending`, moving `clock` (if given) past each backoff. */
  async function settle(d: ReturnType<typeof dispatcher>, id: string, clock?: ReturnType<typeof movableClock>) {
    for (let round = 0; round < 100; round++) {
      await d.runOnce();
      const row = await delivery(id);
      if (row.status !== "pending") return row;
      if (clock) clock.advance(2000);
      else await sleep(25);
    }
    throw new Error(`delivery ${id} still pending`);
  }

  it("a 2xx acknowledges: one signed POST the standardwebhooks package verifies; the run is untouched", async () => {
    const r = await receiver(() => ({ status: 204 }));
    const id = await enqueue(r.url);
    const [runBefore] = await t.db.select().from(runs).where(eq(runs.id, RUN));
    const d = dispatcher(r);
    expect(await d.runOnce()).toEqual({ claimed: 1, delivered: 1, retried: 0, failed: 0, lost: 0 });
    expect(await d.runOnce()).toMatchObject({ claimed: 0 });

    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/hooks/osprey");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["user-agent"]).toBe("Osprey-Webhooks/1.0");
    expect(req?.headers["webhook-id"]).toBe(id);
    expect(Math.abs(Number(req?.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(5);
    expect(JSON.parse(req?.body ?? "")).toEqual(payload);
    const secret = await getOrCreateWebhookSecret(t.db, ACCOUNT);
    expect(new Webhook(secret).verify(req?.body ?? "", req?.headers ?? {})).toEqual(payload);

    const row = await delivery(id);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 204, lastError: null, lockedUntil: null });
    expect(row.finishedAt).toBeInstanceOf(Date);
    const [a] = await attempts(id);
    expect(a).toMatchObject({ attempt: 1, statusCode: 204, outcome: "acknowledged", error: null });
    expect(a?.durationMs).toBeGreaterThanOrEqual(0);
    const [runAfter] = await t.db.select().from(runs).where(eq(runs.id, RUN));
    expect(runAfter).toEqual(runBefore);
  });

  it("500 then 200: retried on the schedule, same webhook-id, fresh timestamp and signature", async () => {
    const r = await receiver((n) => (n === 0 ? { status: 500, body: "boom" } : { status: 200, body: "ok" }));
    const id = await enqueue(r.url);
    const clock = movableClock();
    const d = dispatcher(r, { clock, schedule: [5_000, 10_000] });
    expect(await d.runOnce()).toMatchObject({ claimed: 1, retried: 1 });
    const pending = await delivery(id);
    expect(pending).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatus: 500,
      lastError: "HTTP 500: boom",
      lockedUntil: null,
    });
    const [first] = await attempts(id);
    const wait = pending.nextAttemptAt.getTime() - (first?.startedAt.getTime() ?? 0) - (first?.durationMs ?? 0);
    expect(wait).toBeGreaterThanOrEqual(4_990);
    expect(wait).toBeLessThan(5_500);
    // Not due yet: nothing is claimed.
    expect(await d.runOnce()).toMatchObject({ claimed: 0 });
    clock.advance(6_000);
    expect(await d.runOnce()).toMatchObject({ claimed: 1, delivered: 1 });

    expect(r.requests).toHaveLength(2);
    const [h1, h2] = r.requests.map((q) => q.headers);
    expect(h1?.["webhook-id"]).toBe(id);
    expect(h2?.["webhook-id"]).toBe(id);
    expect(Number(h2?.["webhook-timestamp"])).toBeGreaterThan(Number(h1?.["webhook-timestamp"]));
    expect(h2?.["webhook-signature"]).not.toBe(h1?.["webhook-signature"]);
    const secret = await getOrCreateWebhookSecret(t.db, ACCOUNT);
    for (const q of r.requests) expect(new Webhook(secret).verify(q.body, q.headers)).toEqual(payload);

    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 200 });
    expect((await attempts(id)).map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, "retry"],
      [2, 200, "acknowledged"],
    ]);
  });

  it("a 4xx fails at once after one attempt", async () => {
    const r = await receiver(() => ({ status: 400, body: "bad" }));
    const id = await enqueue(r.url);
    expect(await dispatcher(r).runOnce()).toMatchObject({ claimed: 1, failed: 1 });
    expect(await delivery(id)).toMatchObject({ status: "failed", attempts: 1, lastStatus: 400 });
    expect((await attempts(id)).map((a) => a.outcome)).toEqual(["failed"]);
    expect(r.requests).toHaveLength(1);
  });

  it("408 and 429 are retried; a 429's longer Retry-After is honoured", async () => {
    const r = await receiver((n) =>
      n === 0 ? { status: 408 } : n === 1 ? { status: 429, headers: { "retry-after": "30" } } : { status: 202 },
    );
    const id = await enqueue(r.url);
    const clock = movableClock();
    const d = dispatcher(r, { clock, schedule: [50, 100, 100] });
    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    clock.advance(1000);
    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    const row = await delivery(id);
    expect(row.nextAttemptAt.getTime() - clock.now().getTime()).toBeGreaterThan(25_000);
    clock.advance(2000);
    expect(await d.runOnce()).toMatchObject({ claimed: 0 });
    clock.advance(30_000);
    expect(await d.runOnce()).toMatchObject({ delivered: 1 });
    expect((await attempts(id)).map((a) => [a.statusCode, a.outcome])).toEqual([
      [408, "retry"],
      [429, "retry"],
      [202, "acknowledged"],
    ]);
  });

  it("no answer within timeoutMs is retried; when the schedule is exhausted the delivery fails", async () => {
    const r = await receiver(() => "hang");
    const id = await enqueue(r.url);
    const clock = movableClock();
    const d = dispatcher(r, { clock, timeoutMs: 300, schedule: [50] });
    const started = Date.now();
    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
    const row = await settle(d, id, clock);
    expect(row).toMatchObject({ status: "failed", attempts: 2, lastStatus: null });
    const all = await attempts(id);
    expect(all.map((a) => a.outcome)).toEqual(["retry", "failed"]);
    for (const a of all) {
      expect(a.error).toMatch(/no response within 300 ms/);
      expect(a.durationMs).toBeGreaterThanOrEqual(250);
    }
  });

  it("5xx on every attempt: 1 + schedule.length attempts, then failed", async () => {
    const r = await receiver(() => ({ status: 503 }));
    const id = await enqueue(r.url);
    const row = await settle(dispatcher(r), id);
    expect(row).toMatchObject({ status: "failed", attempts: 3, lastStatus: 503 });
    expect((await attempts(id)).map((a) => a.outcome)).toEqual(["retry", "retry", "failed"]);
    expect(r.requests).toHaveLength(3);
  });

  it("a redirect is not followed: the attempt counts as a retryable failure (spec 6.2.6)", async () => {
    const r = await receiver(() => ({ status: 302, headers: { location: "/elsewhere" } }));
    const id = await enqueue(r.url);
    const d = dispatcher(r);
    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    expect(r.requests.map((q) => q.path)).toEqual(["/hooks/osprey"]);
    const row = await delivery(id);
    expect(row).toMatchObject({ status: "pending", lastStatus: 302 });
    expect(row.lastError).toMatch(/redirect to \/elsewhere \(redirects are not followed\)/);
    const done = await settle(d, id);
    expect(done).toMatchObject({ status: "failed", attempts: 3 });
    expect(r.requests.every((q) => q.path === "/hooks/osprey")).toBe(true);
  });

  it("a private address not on the allow list fails without connecting (the attempt is recorded)", async () => {
    const r = await receiver(() => ({ status: 200 }));
    const id = await enqueue(r.url);
    expect(await dispatcher(null).runOnce()).toMatchObject({ failed: 1 });
    expect(r.requests).toHaveLength(0);
    const [a] = await attempts(id);
    expect(a).toMatchObject({ outcome: "failed", statusCode: null });
    expect(a?.error).toMatch(/refused.*127\.0\.0\.1/);
  });

  it("a name resolving to a private address is refused at send time", async () => {
    const r = await receiver(() => ({ status: 200 }));
    const id = await enqueue(`https://hooks.example.com:${r.port}/x`);
    const d = dispatcher(null, { resolver: async () => [{ address: "10.0.0.7", family: 4 }] });
    expect(await d.runOnce()).toMatchObject({ failed: 1 });
    expect((await delivery(id)).lastError).toMatch(/resolves to 10\.0\.0\.7/);
  });

  it("a plain-HTTP URL is refused", async () => {
    const r = await receiver(() => ({ status: 200 }));
    const id = await enqueue(`http://127.0.0.1:${r.port}/hooks`);
    expect(await dispatcher(r).runOnce()).toMatchObject({ failed: 1 });
    expect(r.requests).toHaveLength(0);
    expect((await delivery(id)).lastError).toMatch(/only https/);
  });

  it("a certificate the dispatcher does not trust is a TLS error, retried", async () => {
    const r = await receiver(() => ({ status: 200 }));
    const id = await enqueue(r.url);
    expect(await dispatcher(r, { ca: undefined }).runOnce()).toMatchObject({ retried: 1 });
    expect(r.requests).toHaveLength(0);
    const [a] = await attempts(id);
    expect(a).toMatchObject({ outcome: "retry", statusCode: null });
    expect(a?.error).toMatch(/certificate|CERT/i);
    // The same receiver, trusted: delivered.
    await sleep(60);
    await settle(dispatcher(r), id);
    expect(await delivery(id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("two dispatchers polling at once never send one attempt twice", async () => {
    const r = await receiver((n) => (n % 3 === 0 ? { status: 500 } : { status: 200 }));
    const ids = await Promise.all(Array.from({ length: 12 }, () => enqueue(r.url)));
    const a = dispatcher(r, { concurrency: 3, schedule: [0, 0, 0] });
    const b = dispatcher(r, { concurrency: 3, schedule: [0, 0, 0] });
    for (let round = 0; round < 50; round++) {
      await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
      const rows = await t.db.select().from(webhookDeliveries);
      if (ids.every((id) => rows.find((row) => row.id === id)?.status === "delivered")) break;
    }
    const sent = new Map<string, number>();
    for (const q of r.requests) {
      const id = q.headers["webhook-id"] ?? "";
      sent.set(id, (sent.get(id) ?? 0) + 1);
    }
    for (const id of ids) {
      const row = await delivery(id);
      expect(row.status).toBe("delivered");
      const rows = await attempts(id);
      // Every request the receiver saw is one recorded attempt, numbered 1..n without repeats.
      expect(rows.map((x) => x.attempt)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
      expect(sent.get(id)).toBe(rows.length);
      expect(row.attempts).toBe(rows.length);
    }
  });

  it("start() polls and delivers; stop() waits for the send in flight", async () => {
    const r = await receiver(() => ({ status: 200 }));
    const d = dispatcher(r, { pollIntervalMs: 20 });
    d.start();
    const id = await enqueue(r.url);
    for (let i = 0; i < 200 && (await delivery(id)).status === "pending"; i++) await sleep(20);
    await d.stop();
    expect(await delivery(id)).toMatchObject({ status: "delivered" });
  });
});

describe("retry schedule", () => {
  it("is 8 retries after the first attempt, 5 s up to 6 h", () => {
    expect(DEFAULT_RETRY_SCHEDULE).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000]);
  });
});

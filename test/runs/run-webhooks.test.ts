import { createServer } from "node:net";
import { asc, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { createWebhookDispatcher, type WebhookDispatcher } from "../../containers/webhooks/dispatcher.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { runs, webhookAttempts, webhookDeliveries } from "../../schema/tables/index.ts";
import { call, sequence } from "../agent/loop/harness.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { LOGIN } from "../helpers/fixture-site.ts";
import { type Json, loginSteps, type RunHarness, startRunHarness } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";
import { makeTestPki, type Receiver, type Reply, startReceiver, type TestPki } from "../webhooks/receiver.ts";

/**
 * Spec 6.2 and 3.1: whole runs with a webhook_url, through the app, the Postgres queue, an
 * in-process worker and real Chromium, delivered by the real dispatcher to an HTTPS receiver that
 * trusts a throwaway CA. Delivery never changes the run.
 */

const login = loginSteps();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("run webhooks end to end on $driver", ({ open }) => {
  let pki: TestPki;
  let database: TestDatabase;
  let h: RunHarness;
  let key: string;
  let accountId: string;
  let errors: string[];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    pki = makeTestPki();
    database = await open();
    // The receivers listen on loopback ports picked per test: the run API accepts any port there.
    h = await startRunHarness(database.db, { heartbeatMs: 300, allowPrivateHosts: [{ host: "127.0.0.1", port: null }] });
    h.startWorker();
  });
  afterAll(async () => {
    await h?.close();
    await database?.dispose();
  });
  beforeEach(async () => {
    errors = [];
    ({ key, accountId } = await h.newKey());
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  async function receiver(reply: (n: number) => Reply): Promise<Receiver> {
    const r = await startReceiver(pki, reply);
    receivers.push(r);
    return r;
  }

  function dispatcher(port: number): WebhookDispatcher {
    return createWebhookDispatcher({
      db: h.db,
      logger: silentLogger,
      allowPrivateHosts: [{ host: "127.0.0.1", port }],
      ca: pki.caCert,
      schedule: [50, 100],
      timeoutMs: 2000,
    });
  }

  const body = (extra: Json = {}) => ({ url: `${h.site.url}/login`, goal: "Sign in and tell me the greeting", ...extra });

  /** Starts a /run-async run with `webhook_url` and waits for its terminal state. */
  async function runToEnd(webhookUrl: string, extra: Json = {}): Promise<Json> {
    const res = await h.ctx.postJson(key, "/v1/automation/run-async", body({ webhook_url: webhookUrl, ...extra }));
    expect(res.status).toBe(200);
    const accepted = (await res.json()) as Json;
    const row = await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    expect(["COMPLETED", "FAILED", "CANCELLED"]).toContain(row.status);
    return getRun(accepted.run_id);
  }

  /** The GET shape as a webhook body carries it: no live-view URL (its token needs no key). */
  const atDelivery = (run: Json): Json => ({ ...run, streaming_url: null });

  const getRun = async (runId: string): Promise<Json> => (await (await h.ctx.call(key, `/v1/runs/${runId}`)).json()) as Json;

  async function deliveryOf(runId: string) {
    const rows = await h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.runId, runId));
    expect(rows).toHaveLength(1);
    const [row] = rows;
    if (!row) throw new Error(`no delivery for ${runId}`);
    return row;
  }

  const attemptsOf = (deliveryId: string) =>
    h.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.attempt));

  /** Runs the dispatcher until the run's delivery leaves `pending` (retries are due after 50/100 ms). */
  async function settle(d: WebhookDispatcher, runId: string) {
    for (let round = 0; round < 200; round++) {
      await d.runOnce();
      const row = await deliveryOf(runId);
      if (row.status !== "pending") return row;
      await sleep(25);
    }
    throw new Error(`the delivery of ${runId} is still pending`);
  }

  async function verified(req: { body: string; headers: Record<string, string> }): Promise<Json> {
    const secret = await h.ctx.services.webhookSecrets.get(accountId);
    return new Webhook(secret).verify(req.body, req.headers) as Json;
  }

  it("a COMPLETED run sends exactly one signed run.completed POST whose data is the GET shape, without screenshots", async () => {
    h.model.setScript(sequence(login, errors));
    const r = await receiver(() => ({ status: 204 }));
    const run = await runToEnd(r.url, { capture_config: { screenshots: true } });
    expect(errors).toEqual([]);
    expect(run.status).toBe("COMPLETED");
    // The run did capture screenshots; the webhook never carries them.
    const withShots = (await (await h.ctx.call(key, `/v1/runs/${run.run_id}?screenshots=base64`)).json()) as Json;
    expect(withShots.screenshots).toHaveLength(4);

    const d = dispatcher(r.port);
    const row = await settle(d, run.run_id);
    expect(await d.runOnce()).toMatchObject({ claimed: 0 });
    expect(row).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 204, eventType: "run.completed", url: r.url });

    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    if (!req) throw new Error("no request");
    expect(req.method).toBe("POST");
    expect(req.path).toBe(new URL(r.url).pathname);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe(row.id);
    const payload = JSON.parse(req.body) as Json;
    expect(Object.keys(payload).sort()).toEqual(["data", "timestamp", "type"]);
    expect(payload.type).toBe("run.completed");
    expect(payload.timestamp).toBe(run.finished_at);
    expect(payload.data).toEqual(atDelivery(run));
    expect(payload.data).not.toHaveProperty("screenshots");
    expect(req.body).not.toContain(new URL(run.streaming_url).pathname);
    expect(payload.data).toMatchObject({ status: "COMPLETED", result: { greeting: "Welcome, Ada", account: 4711 }, error: null });
    expect(req.body).not.toContain(LOGIN.password);
    // Standard Webhooks: the reference package verifies it with the account's secret.
    expect(await verified(req)).toEqual(payload);
    const wrong = new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    expect(() => wrong.verify(req.body, req.headers)).toThrow();

    expect((await attemptsOf(row.id)).map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([[1, 204, "acknowledged"]]);
    expect(await getRun(run.run_id)).toEqual(run);
  });

  it("a FAILED run sends run.failed with data.error populated", async () => {
    h.model.setScript(sequence([() => call("done", { success: false, message: "The page would not let me in." })], errors));
    const r = await receiver(() => ({ status: 200, body: "ok" }));
    const run = await runToEnd(r.url);
    expect(errors).toEqual([]);
    expect(run).toMatchObject({ status: "FAILED", result: null, error: { code: "TASK_FAILED" } });

    const row = await settle(dispatcher(r.port), run.run_id);
    expect(row).toMatchObject({ status: "delivered", eventType: "run.failed" });
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    if (!req) throw new Error("no request");
    const payload = await verified(req);
    expect(payload.type).toBe("run.failed");
    expect(payload.data).toEqual(atDelivery(run));
    expect(payload.data.error).toMatchObject({ code: "TASK_FAILED", message: "The page would not let me in." });
  });

  it("a CANCELLED run sends run.cancelled", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.model.setScript(async (t) => {
      if (t.turn > 0) await gate;
      return call("wait_for", { seconds: 1 });
    });
    const r = await receiver(() => ({ status: 200 }));
    const accepted = (await (await h.ctx.postJson(key, "/v1/automation/run-async", body({ webhook_url: r.url }))).json()) as Json;
    for (let i = 0; i < 200; i++) {
      if ((await h.ctx.runRepo.get(accepted.run_id))?.status === "RUNNING") break;
      await sleep(50);
    }
    const cancel = await h.ctx.call(key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" });
    release();
    expect(cancel.status).toBe(200);
    await h.ctx.runs.service.waitTerminal(accepted.run_id, 30_000);
    const run = await getRun(accepted.run_id);
    expect(run).toMatchObject({ status: "CANCELLED", error: { code: "CANCELLED" }, cancel_requested: true });

    const row = await settle(dispatcher(r.port), run.run_id);
    expect(row).toMatchObject({ status: "delivered", eventType: "run.cancelled" });
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0];
    if (!req) throw new Error("no request");
    const payload = await verified(req);
    expect(payload).toMatchObject({ type: "run.cancelled", timestamp: run.finished_at });
    expect(payload.data).toEqual(atDelivery(run));
  });

  it("500 then 200: two attempts with the same webhook-id, each verifiable; the run is unchanged", async () => {
    h.model.setScript(sequence(login, errors));
    const r = await receiver((n) => (n === 0 ? { status: 500, body: "boom" } : { status: 200 }));
    const run = await runToEnd(r.url);
    expect(run.status).toBe("COMPLETED");
    const [before] = await h.db.select().from(runs).where(eq(runs.id, run.run_id));

    const row = await settle(dispatcher(r.port), run.run_id);
    expect(row).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 200, lastError: null });
    expect(r.requests).toHaveLength(2);
    expect(r.requests.map((q) => q.headers["webhook-id"])).toEqual([row.id, row.id]);
    for (const q of r.requests) expect((await verified(q)).data).toEqual(atDelivery(run));
    expect((await attemptsOf(row.id)).map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, 500, "retry"],
      [2, 200, "acknowledged"],
    ]);
    const [after] = await h.db.select().from(runs).where(eq(runs.id, run.run_id));
    expect(after).toEqual(before);
    expect(await getRun(run.run_id)).toEqual(run);
  });

  it("a 400 fails the delivery after one attempt; the run stays COMPLETED", async () => {
    h.model.setScript(sequence(login, errors));
    const r = await receiver(() => ({ status: 400, body: "no thanks" }));
    const run = await runToEnd(r.url);
    expect(run.status).toBe("COMPLETED");

    const row = await settle(dispatcher(r.port), run.run_id);
    expect(row).toMatchObject({ status: "failed", attempts: 1, lastStatus: 400, lastError: "HTTP 400: no thanks" });
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(r.requests).toHaveLength(1);
    expect((await attemptsOf(row.id)).map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([[1, 400, "failed"]]);
    expect(await getRun(run.run_id)).toEqual(run);
  });

  it("an unreachable receiver: every attempt on the schedule fails, the delivery ends failed, the run stays COMPLETED", async () => {
    h.model.setScript(sequence(login, errors));
    const port = await closedPort();
    const run = await runToEnd(`https://127.0.0.1:${port}/hook`);
    expect(errors).toEqual([]);
    expect(run.status).toBe("COMPLETED");

    const row = await settle(dispatcher(port), run.run_id);
    // One attempt plus the two retries of the [50, 100] schedule.
    expect(row).toMatchObject({ status: "failed", attempts: 3, lastStatus: null });
    expect(row.lastError).toBeTruthy();
    const attempts = await attemptsOf(row.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.outcome])).toEqual([
      [1, null, "retry"],
      [2, null, "retry"],
      [3, null, "failed"],
    ]);
    expect(attempts.every((a) => (a.error ?? "").length > 0)).toBe(true);
    expect(await getRun(run.run_id)).toEqual(run);
  });

  it("a run without webhook_url writes no delivery", async () => {
    h.model.setScript(sequence(login, errors));
    const res = await h.ctx.postJson(key, "/v1/automation/run", body());
    const run = (await res.json()) as Json;
    expect(run.status).toBe("COMPLETED");
    expect(await h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.runId, run.run_id))).toEqual([]);
  });
});

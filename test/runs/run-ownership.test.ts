import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import type { RunWorker } from "../../containers/worker/run-worker.ts";
import { runError, runMessage } from "../../schema/runs.ts";
import { queueMessages, runs } from "../../schema/tables/index.ts";
import { call, sequence } from "../agent/loop/harness.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { type Json, loginSteps, type RunHarness, startRunHarness } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * The run row, not the queue message, says who owns a run: a duplicate delivery of a run another
 * worker is driving is dropped (SQS is at-least-once), and a run whose message was lost is found by
 * the orphan sweep and sent again, so it never stays PENDING.
 */

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("run ownership on $driver", ({ open }) => {
  let database: TestDatabase;
  let h: RunHarness;
  let key: string;
  let worker: RunWorker;

  beforeAll(async () => {
    database = await open();
    h = await startRunHarness(database.db);
    worker = h.startWorker({ orphanAfterMs: 300, sweepEveryMs: 150 });
    key = (await h.newKey()).key;
  });
  afterAll(async () => {
    await h?.close();
    await database?.dispose();
  });

  const login = () => {
    const errors: string[] = [];
    return { errors, script: sequence(loginSteps({ greeting: "Welcome, Ada" }), errors) };
  };

  it("drops a duplicate delivery of a run another worker slot is driving: the run runs once", async () => {
    const { errors, script } = login();
    let hold = true;
    h.model.setScript(async (t) => {
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return script(t);
    });
    const body = { url: `${h.site.url}/login`, goal: "Sign in" };
    const accepted = (await (await h.ctx.postJson(key, "/v1/automation/run-async", body)).json()) as Json;
    for (let i = 0; i < 200 && (await h.ctx.runRepo.get(accepted.run_id))?.status !== "RUNNING"; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const turnsBefore = h.model.turns.length;
    await h.queue.send(runMessage(accepted.run_id));
    // The duplicate is received by the worker's second slot and acknowledged without running.
    let left = 2;
    for (let i = 0; i < 200 && left > 1; i++) {
      await new Promise((r) => setTimeout(r, 25));
      left = (await h.db.select().from(queueMessages)).length;
    }
    expect(left).toBe(1);
    expect((await h.ctx.runRepo.get(accepted.run_id))?.status).toBe("RUNNING");
    hold = false;
    const done = await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    expect(errors).toEqual([]);
    expect(done).toMatchObject({ status: "COMPLETED", attempts: 1, steps: 4 });
    expect(h.model.turns.length - turnsBefore).toBe(4);
  });

  it("a worker whose run was taken over stops at its next write: no second charge, no step, no terminal write", async () => {
    // Its own key, so the run left RUNNING under the other owner takes no one else's pending slot.
    const { key: own, accountId } = await h.newKey({ credits: 100 });
    let runId = "";
    let turns = 0;
    h.model.setScript(async () => {
      if (turns++ === 0) return call("scroll", { direction: "down" });
      // Between the first and the second step this worker's lease lapses (its event loop was held,
      // as by the audit's 82 s regular expression) and another worker takes the run over.
      await h.db.update(runs).set({ heartbeatAt: sql`now() - interval '1 hour'` }).where(eq(runs.id, runId));
      if (!(await h.ctx.runRepo.start(runId, "wrk_other", 1000))) throw new Error("no takeover");
      return call("done", { success: true, result: "finished by the worker that lost the run" });
    });
    const body = { url: `${h.site.url}/`, goal: "Read the page" };
    const accepted = (await (await h.ctx.postJson(own, "/v1/automation/run-async", body)).json()) as Json;
    runId = accepted.run_id;
    for (let i = 0; i < 400 && (turns < 2 || worker.inflight() > 0); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(worker.inflight()).toBe(0);
    const row = await h.ctx.runRepo.get(runId);
    // The first step was charged once; the step the old owner finished after losing the run was
    // neither recorded nor charged, and its result was not written.
    expect(row).toMatchObject({ status: "RUNNING", workerId: "wrk_other", creditsUsed: 1, steps: 1, result: null });
    expect((await h.ctx.runRepo.steps(runId)).map((s) => s.step)).toEqual([1]);
    expect((await h.ctx.services.accounts.get(accountId)).creditBalance).toBe(99);
    const events = await h.ctx.runRepo.eventsAfter(runId, 0);
    expect(events.map((e) => e.type)).not.toContain("COMPLETE");
    expect(turns).toBe(2);
    // The old owner left its delivery unacknowledged (the new owner's is the one that counts): clear it.
    await h.ctx.runs.service.finish(runId, "CANCELLED", null, runError("CANCELLED", "The test ends the run."));
    await h.db.delete(queueMessages).where(sql`${queueMessages.body}->>'run_id' = ${runId}`);
  });

  it("re-sends the message of a run whose message was lost; the run completes", async () => {
    const { errors, script } = login();
    let hold = true;
    h.model.setScript(async (t) => {
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return script(t);
    });
    // Accepted while the queue drops every message (a crash between insert and send looks like this).
    const send = h.queue.send;
    h.queue.send = async () => {};
    const body = { url: `${h.site.url}/login`, goal: "Sign in" };
    const accepted = (await (await h.ctx.postJson(key, "/v1/automation/run-async", body)).json()) as Json;
    h.queue.send = send;
    expect(await h.db.select().from(queueMessages)).toHaveLength(0);
    await h.db.update(runs).set({ enqueuedAt: sql`now() - interval '1 minute'` }).where(eq(runs.id, accepted.run_id));
    hold = false;
    const done = await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    expect(errors).toEqual([]);
    expect(done).toMatchObject({ status: "COMPLETED", result: { greeting: "Welcome, Ada" } });
  });
});

import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { runMessage } from "../../schema/runs.ts";
import { queueMessages, runs } from "../../schema/tables/index.ts";
import { sequence } from "../agent/loop/harness.ts";
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

  beforeAll(async () => {
    database = await open();
    h = await startRunHarness(database.db);
    h.startWorker({ orphanAfterMs: 300, sweepEveryMs: 150 });
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
    for (let i = 0; i < 200 && (await h.ctx.runs.service.repo.get(accepted.run_id))?.status !== "RUNNING"; i++) {
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
    expect((await h.ctx.runs.service.repo.get(accepted.run_id))?.status).toBe("RUNNING");
    hold = false;
    const done = await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    expect(errors).toEqual([]);
    expect(done).toMatchObject({ status: "COMPLETED", attempts: 1, steps: 4 });
    expect(h.model.turns.length - turnsBefore).toBe(4);
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

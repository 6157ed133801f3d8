import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_VIEW_GRACE_MS } from "../../functions/runs/run.wire.ts";
import { runError } from "../../schema/runs.ts";
import { webhookDeliveries } from "../../schema/tables/index.ts";
import type { TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { acceptingContext, fundedKey, type Json, okJson, VALID } from "./run-admission-helpers.ts";

/**
 * The live view's token needs no key, so it must not outlive its run: every address under it
 * answers 404 once LIVE_VIEW_GRACE_MS has passed after the run ended, GET /v1/runs/{id} stops
 * handing it out then, and a webhook body (which leaves the owner's hands) never carries it.
 * The service's clock is moved instead of waiting.
 */

describe.each(driverCases(["pglite", "pg"]))("live view lifetime on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;
  let key: string;

  beforeAll(async () => {
    database = await open();
    ctx = acceptingContext(database.db);
    ({ key } = await fundedKey(ctx));
  });
  afterAll(() => database?.dispose());

  it("a finished run's live view answers until the grace ends, then 404; GET stops handing out the URL", async () => {
    const accepted = await okJson(
      await ctx.postJson(key, "/v1/automation/run-async", { ...VALID, webhook_url: "https://hooks.example.com/osprey" }),
    );
    const path = new URL(accepted.streaming_url).pathname;
    ctx.clock.set(Date.now());
    expect((await ctx.app.request(path)).status).toBe(200);
    const done = await ctx.runs.service.finish(accepted.run_id, "COMPLETED", { price: 9 }, null);
    if (!done?.finishedAt) throw new Error("the run did not finish");
    const finishedAt = done.finishedAt.getTime();

    ctx.clock.set(finishedAt + LIVE_VIEW_GRACE_MS - 1000);
    expect((await ctx.app.request(`${path}/state`)).status).toBe(200);
    const during = (await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}`))) as Json;
    expect(during.streaming_url).toBe(accepted.streaming_url);

    ctx.clock.set(finishedAt + LIVE_VIEW_GRACE_MS + 1000);
    for (const p of [path, `${path}/state`, `${path}/frame`]) expect((await ctx.app.request(p)).status).toBe(404);
    const after = (await okJson(await ctx.call(key, `/v1/runs/${accepted.run_id}`))) as Json;
    expect(after).toMatchObject({ status: "COMPLETED", streaming_url: null });
    const listed = (await okJson(await ctx.call(key, "/v1/runs"))) as Json;
    expect(listed.items.find((r: Json) => r.run_id === accepted.run_id)?.streaming_url).toBeNull();
  });

  it("a run's live view is read-only: its page has no controls and nothing under it takes input", async () => {
    const accepted = await okJson(await ctx.postJson(key, "/v1/automation/run-async", VALID));
    const path = new URL(accepted.streaming_url).pathname;
    ctx.clock.set(Date.now());
    const page = await ctx.app.request(path);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).not.toContain("/input");
    expect(text).not.toContain('id="url"');
    const input = await ctx.app.request(`${path}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "history", action: "reload" }),
    });
    expect(input.status).toBe(404);
  });

  it("a malformed or unknown token is 404 at every address; /state reports the run and its latest step", async () => {
    for (const token of ["short", "A".repeat(33), "a-b".repeat(11), "Z".repeat(32)]) {
      for (const p of ["", "/state", "/frame"]) expect((await ctx.app.request(`/v1/live/${token}${p}`)).status).toBe(404);
    }
    const accepted = await okJson(await ctx.postJson(key, "/v1/automation/run-async", VALID));
    const path = new URL(accepted.streaming_url).pathname;
    ctx.clock.set(Date.now());
    const before = await ctx.app.request(`${path}/state`);
    expect(before.headers.get("cache-control")).toBe("no-store");
    expect(await before.json()).toEqual({
      run_id: accepted.run_id,
      status: "PENDING",
      finished: false,
      steps: 0,
      purpose: null,
      url: null,
    });
    expect((await ctx.app.request(`${path}/frame`)).status).toBe(404);
    // Two steps written as a worker would: /state reads the latest one.
    expect(await ctx.runRepo.start(accepted.run_id, "wrk_live", 30_000)).not.toBeNull();
    const usage = { inputTokens: 1, outputTokens: 1 };
    for (const n of [1, 2]) {
      const step = {
        runId: accepted.run_id,
        step: n,
        purpose: `purpose ${n}`,
        action: { name: "click", args: {} },
        ok: true,
        message: "",
        url: `https://example.com/${n}`,
      };
      expect(await ctx.runRepo.addStep(step, usage, "wrk_live")).toBe(true);
    }
    expect(await (await ctx.app.request(`${path}/state`)).json()).toEqual({
      run_id: accepted.run_id,
      status: "RUNNING",
      finished: false,
      steps: 2,
      purpose: "purpose 2",
      url: "https://example.com/2",
    });
  });

  it("the webhook body carries no live-view token", async () => {
    const accepted = await okJson(
      await ctx.postJson(key, "/v1/automation/run-async", { ...VALID, webhook_url: "https://hooks.example.com/osprey" }),
    );
    const token = new URL(accepted.streaming_url).pathname.split("/").at(-1) as string;
    ctx.clock.set(Date.now());
    await ctx.runs.service.finish(accepted.run_id, "FAILED", null, runError("TASK_FAILED", "The goal was not reached."));
    const [delivery] = await database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.runId, accepted.run_id));
    expect(delivery?.payload).toMatchObject({ type: "run.failed", data: { run_id: accepted.run_id, streaming_url: null } });
    expect(JSON.stringify(delivery?.payload)).not.toContain(token);
  });
});

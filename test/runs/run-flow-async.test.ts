import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { webhookDeliveries } from "../../schema/tables/index.ts";
import { call, sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { type Json, loginSteps, useRunSuite } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: whole runs through the asynchronous entry points (/v1/automation/run-async and
 * /run-batch), against the fixture site, real Chromium, the Postgres queue and an in-process worker:
 * polling, screenshots and step artifacts, cancelling a running run, batches.
 * The scripted model finds each element it needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("async and batch runs on $driver", ({ open }) => {
  const s = useRunSuite(open);

  it("/run-async returns a PENDING run at once; polling GET reaches COMPLETED; screenshots=base64 adds PNGs", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const res = await s.h.ctx.postJson(
      s.key,
      "/v1/automation/run-async",
      s.body({ capture_config: { screenshots: true, html: true } }),
    );
    expect(res.status).toBe(200);
    const accepted = (await res.json()) as Json;
    expect(accepted).toMatchObject({ status: "PENDING", result: null, error: null, entry: "async", steps: 0 });
    await s.h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    const plain = (await (await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}`)).json()) as Json;
    expect(plain.status).toBe("COMPLETED");
    expect(plain.screenshots).toBeUndefined();
    const withShots = (await (await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}?screenshots=base64`)).json()) as Json;
    expect(withShots.screenshots).toHaveLength(4);
    expect(Buffer.from(withShots.screenshots[0].data, "base64").subarray(0, 4).toString("hex")).toBe("89504e47");
    const shot = await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/steps/3/screenshot`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/png");
    const html = await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/steps/3/html`);
    expect(await html.text()).toContain("Welcome, Ada");
    const noElements = await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/steps/3/elements`);
    expect(noElements.status).toBe(404);
    expect(((await noElements.json()) as Json).error.code).toBe("NOT_FOUND");
    expect((await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/steps/9/html`)).status).toBe(404);
  });

  it("cancels a running /run-async run: it ends CANCELLED with the CANCELLED error, and a webhook row is written", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    s.h.model.setScript(async (t) => {
      if (t.turn > 0) await gate;
      return call("wait_for", { seconds: 1 });
    });
    const accepted = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run-async", s.body({ webhook_url: "https://hooks.example.com/x" }))
    ).json()) as Json;
    // Wait until the worker holds it.
    for (let i = 0; i < 100; i++) {
      const r = await s.h.ctx.runRepo.get(accepted.run_id);
      if (r?.status === "RUNNING") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" });
    release();
    const cancelled = (await res.json()) as Json;
    expect(res.status).toBe(200);
    expect(cancelled).toMatchObject({
      status: "CANCELLED",
      result: null,
      error: { code: "CANCELLED", category: null },
      cancel_requested: true,
    });
    // The terminal transaction wrote the webhook outbox row with the GET shape.
    const [delivery] = await s.h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.runId, accepted.run_id));
    expect(delivery).toMatchObject({ url: "https://hooks.example.com/x", eventType: "run.cancelled", status: "pending" });
    expect(delivery?.payload).toMatchObject({ type: "run.cancelled", data: { run_id: accepted.run_id, status: "CANCELLED" } });
    // Idempotent.
    const again = (await (await s.h.ctx.call(s.key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" })).json()) as Json;
    expect(again.status).toBe("CANCELLED");
  });

  it("/run-batch starts each child as its own cancellable run, listed by batch_id", async () => {
    s.h.model.setScript(() => call("done", { success: true, result: { ok: true } }));
    const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-batch", { runs: [s.body(), s.body({ goal: "Second" })] });
    expect(res.status).toBe(200);
    const batch = (await res.json()) as Json;
    expect(batch).toMatchObject({ accepted: 2, rejected: 0 });
    for (const slot of batch.runs) await s.h.ctx.runs.service.waitTerminal(slot.run_id, 60_000);
    const list = (await (await s.h.ctx.call(s.key, `/v1/runs?batch_id=${batch.batch_id}`)).json()) as Json;
    expect(list.total).toBe(2);
    expect(list.items.map((r: Json) => [r.entry, r.status])).toEqual([
      ["batch", "COMPLETED"],
      ["batch", "COMPLETED"],
    ]);
  });

  it("keeps worker state clean", () => {
    expect(s.worker.inflight()).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { type Json, loginSteps, useRunSuite } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: what a run leaves to watch, against the fixture site, real Chromium, the
 * Postgres queue and an in-process worker: the recording (screencast frames and step timeline) and
 * the live view, both after the run and while the browser works.
 * The scripted model finds each element it needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("run recordings and live view on $driver", ({ open }) => {
  const s = useRunSuite(open);

  it("capture_config.recording keeps a replay: screencast frames and the step timeline", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const run = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body({ capture_config: { recording: true } }))
    ).json()) as Json;
    expect(run.status).toBe("COMPLETED");
    const res = await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}/recording`);
    expect(res.status).toBe(200);
    const rec = (await res.json()) as Json;
    expect(rec).toMatchObject({ run_id: run.run_id, status: "COMPLETED", finished: true, video: { media_type: "image/jpeg" } });
    expect(rec.steps.map((step: Json) => step.action.name)).toEqual(["type", "type", "click", "done"]);
    expect(rec.steps.every((s: Json) => typeof s.screenshot === "string")).toBe(true);
    expect(rec.video.frames.length).toBeGreaterThan(0);
    const ats = rec.video.frames.map((f: Json) => f.at_ms);
    expect([...ats].sort((a: number, b: number) => a - b)).toEqual(ats);
    const frame = await s.h.ctx.call(s.key, rec.video.frames[0].path);
    expect(frame.headers.get("content-type")).toBe("image/jpeg");
    expect(
      Buffer.from(await frame.arrayBuffer())
        .subarray(0, 2)
        .toString("hex"),
    ).toBe("ffd8");
    expect((await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}/recording/frames/99999`)).status).toBe(404);
    expect((await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}/recording/frames/0`)).status).toBe(400);
    // A run that did not ask for a recording has none.
    s.h.model.setScript(sequence(login, s.errors));
    const plain = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body())).json()) as Json;
    expect((await s.h.ctx.call(s.key, `/v1/runs/${plain.run_id}/recording`)).status).toBe(404);
  });

  it("the live view answers without a key while the token is right, and 404 otherwise", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const run = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body())).json()) as Json;
    const path = new URL(run.streaming_url).pathname;
    const page = await s.h.ctx.app.request(path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain(run.run_id);
    const state = (await (await s.h.ctx.app.request(`${path}/state`)).json()) as Json;
    expect(state).toMatchObject({ status: "COMPLETED", finished: true, steps: 4 });
    const frame = await s.h.ctx.app.request(`${path}/frame`);
    expect(frame.headers.get("content-type")).toBe("image/jpeg");
    expect((await s.h.ctx.app.request(`${path.slice(0, -1)}X`)).status).toBe(404);
  });

  it("the live view shows the browser while it works, before the first step ends", async () => {
    let hold = true;
    s.h.model.setScript(async (t) => {
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return sequence(login, s.errors)(t);
    });
    const accepted = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run-async", s.body())).json()) as Json;
    const path = new URL(accepted.streaming_url).pathname;
    let frame: Response | null = null;
    for (let i = 0; i < 200; i++) {
      frame = await s.h.ctx.app.request(`${path}/frame`);
      if (frame.status === 200) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const state = (await (await s.h.ctx.app.request(`${path}/state`)).json()) as Json;
    hold = false;
    expect(frame?.status).toBe(200);
    const jpeg = Buffer.from(await (frame as Response).arrayBuffer());
    expect(jpeg.subarray(0, 2).toString("hex")).toBe("ffd8");
    expect(state).toMatchObject({ status: "RUNNING", steps: 0, finished: false });
    await s.h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
  });
});

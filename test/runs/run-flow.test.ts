import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import type { RunWorker } from "../../containers/worker/run-worker.ts";
import { webhookDeliveries } from "../../schema/tables/index.ts";
import { call, sequence, stateText } from "../agent/loop/harness.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { LOGIN } from "../helpers/fixture-site.ts";
import { type Json, loginSteps, PUBLIC_URL, type RunHarness, readSse, startRunHarness } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: whole runs through every entry point, against the fixture site, real
 * Chromium, the Postgres queue and an in-process worker; the scripted model finds each element it
 * needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("runs end to end on $driver", ({ open }) => {
  let database: TestDatabase;
  let h: RunHarness;
  let worker: RunWorker;
  let key: string;
  let accountId: string;
  let errors: string[];

  beforeAll(async () => {
    database = await open();
    h = await startRunHarness(database.db, { heartbeatMs: 300 });
    worker = h.startWorker();
  });
  afterAll(async () => {
    await h?.close();
    await database?.dispose();
  });
  beforeEach(async () => {
    errors = [];
    ({ key, accountId } = await h.newKey());
  });

  const body = (extra: Json = {}) => ({ url: `${h.site.url}/login`, goal: "Sign in and tell me the greeting", ...extra });

  it("POST /v1/automation/run blocks until COMPLETED and returns the result", async () => {
    h.model.setScript(sequence(login, errors));
    const res = await h.ctx.postJson(key, "/v1/automation/run", body());
    const run = (await res.json()) as Json;
    expect(errors).toEqual([]);
    expect(res.status).toBe(200);
    expect(run).toMatchObject({
      status: "COMPLETED",
      result: { greeting: "Welcome, Ada", account: 4711 },
      error: null,
      entry: "run",
      steps: 4,
      credits_used: 4,
      usage: { input_tokens: 400, output_tokens: 40 },
    });
    expect(run.run_id).toMatch(/^run_/);
    expect(run.streaming_url).toMatch(new RegExp(`^${PUBLIC_URL}/v1/live/[A-Za-z0-9]{32}$`));
    expect(Date.parse(run.finished_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    // The same run through GET, and its steps.
    const got = (await (await h.ctx.call(key, `/v1/runs/${run.run_id}`)).json()) as Json;
    expect(got).toEqual(run);
    const steps = (await (await h.ctx.call(key, `/v1/runs/${run.run_id}/steps`)).json()) as Json;
    expect(steps.steps.map((s: Json) => s.action.name)).toEqual(["type", "type", "click", "done"]);
    expect(steps.steps.every((s: Json) => s.purpose.length > 0)).toBe(true);
    expect(JSON.stringify(steps)).not.toContain(LOGIN.password);
    const account = (await (await h.ctx.call(key, "/v1/account")).json()) as Json;
    expect(account.credit_balance).toBe(1000 - 4);
  });

  it("/run-sse streams STARTED, STREAMING_URL, one PROGRESS per step with its purpose, and COMPLETE last", async () => {
    h.model.setScript(sequence(login, errors));
    const res = await h.ctx.postJson(key, "/v1/automation/run-sse", body());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(res);
    expect(errors).toEqual([]);
    const types = events.map((e) => e.type).filter((t) => t !== "HEARTBEAT");
    expect(types).toEqual(["STARTED", "STREAMING_URL", "PROGRESS", "PROGRESS", "PROGRESS", "PROGRESS", "COMPLETE"]);
    const runId = events[0]?.run_id;
    for (const e of events) {
      expect(e.run_id).toBe(runId);
      expect(Date.parse(String(e.timestamp))).not.toBeNaN();
    }
    const progress = events.filter((e) => e.type === "PROGRESS");
    expect(progress.map((e) => e.purpose)).toEqual([
      "type for the test",
      "type for the test",
      "click for the test",
      "done for the test",
    ]);
    expect(events.find((e) => e.type === "STREAMING_URL")?.streaming_url).toMatch(/\/v1\/live\/[A-Za-z0-9]{32}$/);
    expect(events.at(-1)).toMatchObject({
      type: "COMPLETE",
      status: "COMPLETED",
      result: { greeting: "Welcome, Ada" },
      error: null,
    });
  });

  it("/run-sse sends HEARTBEAT while nothing else happens, and a client that goes away does not stop the run", async () => {
    // The first model call of each run takes a while: the stream keeps the connection alive meanwhile.
    const steps = [...login];
    let i = 0;
    h.model.setScript(async (t) => {
      if (i === 0) await new Promise((r) => setTimeout(r, 1200));
      const step = steps[i++];
      if (!step) throw new Error("script ended");
      return step(t);
    });
    const res = await h.ctx.postJson(key, "/v1/automation/run-sse", body());
    const events = await readSse(res);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("STARTED");
    expect(types.at(-1)).toBe("COMPLETE");
    const firstProgress = types.indexOf("PROGRESS");
    expect(types.slice(0, firstProgress)).toContain("HEARTBEAT");
    const beat = events.find((e) => e.type === "HEARTBEAT");
    expect(Object.keys(beat ?? {}).sort()).toEqual(["run_id", "timestamp", "type"]);

    // Disconnect right after the first event: the run still completes.
    i = 0;
    const abort = new AbortController();
    const res2 = await h.ctx.app.request("/v1/automation/run-sse", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body()),
      signal: abort.signal,
    });
    const reader = res2.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    const runId = JSON.parse(first.replace(/^data: /, "").trim()).run_id as string;
    await reader?.cancel();
    abort.abort();
    const done = await h.ctx.runs.service.waitTerminal(runId, 60_000);
    expect(done.status).toBe("COMPLETED");
  });

  it("/run-sse answers errors before acceptance as ordinary JSON error responses", async () => {
    const res = await h.ctx.postJson(key, "/v1/automation/run-sse", { url: "nope", goal: "" });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await res.json()) as Json).error.code).toBe("INVALID_INPUT");
  });

  it("/run-async returns a PENDING run at once; polling GET reaches COMPLETED; screenshots=base64 adds PNGs", async () => {
    h.model.setScript(sequence(login, errors));
    const res = await h.ctx.postJson(
      key,
      "/v1/automation/run-async",
      body({ capture_config: { screenshots: true, html: true } }),
    );
    expect(res.status).toBe(200);
    const accepted = (await res.json()) as Json;
    expect(accepted).toMatchObject({ status: "PENDING", result: null, error: null, entry: "async", steps: 0 });
    await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
    const plain = (await (await h.ctx.call(key, `/v1/runs/${accepted.run_id}`)).json()) as Json;
    expect(plain.status).toBe("COMPLETED");
    expect(plain.screenshots).toBeUndefined();
    const withShots = (await (await h.ctx.call(key, `/v1/runs/${accepted.run_id}?screenshots=base64`)).json()) as Json;
    expect(withShots.screenshots).toHaveLength(4);
    expect(Buffer.from(withShots.screenshots[0].data, "base64").subarray(0, 4).toString("hex")).toBe("89504e47");
    const shot = await h.ctx.call(key, `/v1/runs/${accepted.run_id}/steps/3/screenshot`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/png");
    const html = await h.ctx.call(key, `/v1/runs/${accepted.run_id}/steps/3/html`);
    expect(await html.text()).toContain("Welcome, Ada");
    const noElements = await h.ctx.call(key, `/v1/runs/${accepted.run_id}/steps/3/elements`);
    expect(noElements.status).toBe(404);
    expect(((await noElements.json()) as Json).error.code).toBe("NOT_FOUND");
    expect((await h.ctx.call(key, `/v1/runs/${accepted.run_id}/steps/9/html`)).status).toBe(404);
  });

  it("capture_config.recording keeps a replay: screencast frames and the step timeline", async () => {
    h.model.setScript(sequence(login, errors));
    const run = (await (
      await h.ctx.postJson(key, "/v1/automation/run", body({ capture_config: { recording: true } }))
    ).json()) as Json;
    expect(run.status).toBe("COMPLETED");
    const res = await h.ctx.call(key, `/v1/runs/${run.run_id}/recording`);
    expect(res.status).toBe(200);
    const rec = (await res.json()) as Json;
    expect(rec).toMatchObject({ run_id: run.run_id, status: "COMPLETED", finished: true, video: { media_type: "image/jpeg" } });
    expect(rec.steps.map((s: Json) => s.action.name)).toEqual(["type", "type", "click", "done"]);
    expect(rec.steps.every((s: Json) => typeof s.screenshot === "string")).toBe(true);
    expect(rec.video.frames.length).toBeGreaterThan(0);
    const ats = rec.video.frames.map((f: Json) => f.at_ms);
    expect([...ats].sort((a: number, b: number) => a - b)).toEqual(ats);
    const frame = await h.ctx.call(key, rec.video.frames[0].path);
    expect(frame.headers.get("content-type")).toBe("image/jpeg");
    expect(
      Buffer.from(await frame.arrayBuffer())
        .subarray(0, 2)
        .toString("hex"),
    ).toBe("ffd8");
    expect((await h.ctx.call(key, `/v1/runs/${run.run_id}/recording/frames/99999`)).status).toBe(404);
    expect((await h.ctx.call(key, `/v1/runs/${run.run_id}/recording/frames/0`)).status).toBe(400);
    // A run that did not ask for a recording has none.
    h.model.setScript(sequence(login, errors));
    const plain = (await (await h.ctx.postJson(key, "/v1/automation/run", body())).json()) as Json;
    expect((await h.ctx.call(key, `/v1/runs/${plain.run_id}/recording`)).status).toBe(404);
  });

  it("the live view answers without a key while the token is right, and 404 otherwise", async () => {
    h.model.setScript(sequence(login, errors));
    const run = (await (await h.ctx.postJson(key, "/v1/automation/run", body())).json()) as Json;
    const path = new URL(run.streaming_url).pathname;
    const page = await h.ctx.app.request(path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain(run.run_id);
    const state = (await (await h.ctx.app.request(`${path}/state`)).json()) as Json;
    expect(state).toMatchObject({ status: "COMPLETED", finished: true, steps: 4 });
    const frame = await h.ctx.app.request(`${path}/frame`);
    expect(frame.headers.get("content-type")).toBe("image/jpeg");
    expect((await h.ctx.app.request(`${path.slice(0, -1)}X`)).status).toBe(404);
  });

  it("the live view shows the browser while it works, before the first step ends", async () => {
    let hold = true;
    h.model.setScript(async (t) => {
      while (hold) await new Promise((r) => setTimeout(r, 20));
      return sequence(login, errors)(t);
    });
    const accepted = (await (await h.ctx.postJson(key, "/v1/automation/run-async", body())).json()) as Json;
    const path = new URL(accepted.streaming_url).pathname;
    let frame: Response | null = null;
    for (let i = 0; i < 200; i++) {
      frame = await h.ctx.app.request(`${path}/frame`);
      if (frame.status === 200) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const state = (await (await h.ctx.app.request(`${path}/state`)).json()) as Json;
    hold = false;
    expect(frame?.status).toBe(200);
    const jpeg = Buffer.from(await (frame as Response).arrayBuffer());
    expect(jpeg.subarray(0, 2).toString("hex")).toBe("ffd8");
    expect(state).toMatchObject({ status: "RUNNING", steps: 0, finished: false });
    await h.ctx.runs.service.waitTerminal(accepted.run_id, 60_000);
  });

  it("cancels a running /run-async run: it ends CANCELLED with the CANCELLED error, and a webhook row is written", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    h.model.setScript(async (t) => {
      if (t.turn > 0) await gate;
      return call("wait_for", { seconds: 1 });
    });
    const accepted = (await (
      await h.ctx.postJson(key, "/v1/automation/run-async", body({ webhook_url: "https://hooks.example.com/x" }))
    ).json()) as Json;
    // Wait until the worker holds it.
    for (let i = 0; i < 100; i++) {
      const r = await h.ctx.runs.service.repo.get(accepted.run_id);
      if (r?.status === "RUNNING") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await h.ctx.call(key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" });
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
    const [delivery] = await h.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.runId, accepted.run_id));
    expect(delivery).toMatchObject({ url: "https://hooks.example.com/x", eventType: "run.cancelled", status: "pending" });
    expect(delivery?.payload).toMatchObject({ type: "run.cancelled", data: { run_id: accepted.run_id, status: "CANCELLED" } });
    // Idempotent.
    const again = (await (await h.ctx.call(key, `/v1/runs/${accepted.run_id}/cancel`, { method: "POST" })).json()) as Json;
    expect(again.status).toBe("CANCELLED");
  });

  it("cancelling a /run run is refused: 400 INVALID_INPUT", async () => {
    h.model.setScript(sequence(login, errors));
    const run = (await (await h.ctx.postJson(key, "/v1/automation/run", body())).json()) as Json;
    const res = await h.ctx.call(key, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/cannot be cancelled/),
    });
  });

  it("run ids of another account or key scope are 404", async () => {
    h.model.setScript(sequence(login, errors));
    const run = (await (await h.ctx.postJson(key, "/v1/automation/run", body())).json()) as Json;
    const other = await h.newKey();
    for (const path of [`/v1/runs/${run.run_id}`, `/v1/runs/${run.run_id}/steps`, `/v1/runs/${run.run_id}/steps/1/screenshot`]) {
      const res = await h.ctx.call(other.key, path);
      expect(res.status).toBe(404);
    }
    const cancel = await h.ctx.call(other.key, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(404);
    // An MCP-scoped key of the same account does not see REST runs.
    const mcp = await h.ctx.services.apiKeys.create({ accountId, scope: "mcp" });
    expect((await h.ctx.call(mcp.key, `/v1/runs/${run.run_id}`)).status).toBe(404);
  });

  it("a run that exhausts the account's credits mid-way ends FAILED with INSUFFICIENT_CREDITS (BILLING_FAILURE)", async () => {
    const poor = await h.newKey({ credits: 2 });
    h.model.setScript(sequence(login, errors));
    const run = (await (await h.ctx.postJson(poor.key, "/v1/automation/run", body())).json()) as Json;
    expect(run).toMatchObject({
      status: "FAILED",
      result: null,
      error: { code: "INSUFFICIENT_CREDITS", category: "BILLING_FAILURE", retry_after: null },
      credits_used: 2,
    });
    const account = (await (await h.ctx.call(poor.key, "/v1/account")).json()) as Json;
    expect(account.credit_balance).toBe(0);
    // Before acceptance the same situation is a 403.
    const refused = await h.ctx.postJson(poor.key, "/v1/automation/run-async", body());
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/credits/),
    });
  });

  it("a bot-challenge start page ends FAILED with SITE_BLOCKED", async () => {
    h.model.setScript(() => call("done", { success: true, result: {} }));
    const run = (await (
      await h.ctx.postJson(key, "/v1/automation/run", { url: `${h.site.url}/challenge`, goal: "Read the page" })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED", category: "AGENT_FAILURE" } });
  });

  it("the step budget (beta max_steps) ends FAILED with MAX_STEPS_EXCEEDED", async () => {
    const beta = await h.newKey({ entitlements: ["beta"] });
    h.model.setScript(() => call("scroll", { direction: "down" }));
    const run = (await (
      await h.ctx.postJson(beta.key, "/v1/automation/run", { ...body(), agent_config: { max_steps: 2 } })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", steps: 2, error: { code: "MAX_STEPS_EXCEEDED", category: "AGENT_FAILURE" } });
  });

  it("output_schema: a result that matches is COMPLETED; one that never matches is FAILED TASK_FAILED after one re-ask", async () => {
    const schema = {
      type: "object",
      properties: { account: { type: "integer" } },
      required: ["account"],
      additionalProperties: false,
    };
    h.model.setScript(() => call("done", { success: true, result: { account: 4711 } }));
    const ok = (await (await h.ctx.postJson(key, "/v1/automation/run", { ...body(), output_schema: schema })).json()) as Json;
    expect(ok).toMatchObject({ status: "COMPLETED", result: { account: 4711 } });
    h.model.turns.length = 0;
    h.model.setScript(() => call("done", { success: true, result: { account: "forty-seven" } }));
    const bad = (await (await h.ctx.postJson(key, "/v1/automation/run", { ...body(), output_schema: schema })).json()) as Json;
    expect(bad).toMatchObject({ status: "FAILED", result: null, error: { code: "TASK_FAILED" } });
    expect(h.model.turns).toHaveLength(2);
  });

  it("/run-batch starts each child as its own cancellable run, listed by batch_id", async () => {
    h.model.setScript(() => call("done", { success: true, result: { ok: true } }));
    const res = await h.ctx.postJson(key, "/v1/automation/run-batch", { runs: [body(), body({ goal: "Second" })] });
    expect(res.status).toBe(200);
    const batch = (await res.json()) as Json;
    expect(batch).toMatchObject({ accepted: 2, rejected: 0 });
    for (const slot of batch.runs) await h.ctx.runs.service.waitTerminal(slot.run_id, 60_000);
    const list = (await (await h.ctx.call(key, `/v1/runs?batch_id=${batch.batch_id}`)).json()) as Json;
    expect(list.total).toBe(2);
    expect(list.items.map((r: Json) => [r.entry, r.status])).toEqual([
      ["batch", "COMPLETED"],
      ["batch", "COMPLETED"],
    ]);
  });

  it("a start url the address policy refuses is 403 FORBIDDEN before acceptance", async () => {
    for (const url of [
      "http://127.0.0.1:1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://localhost/",
      "http://10.0.0.1/",
    ]) {
      const res = await h.ctx.postJson(key, "/v1/automation/run-async", { url, goal: "Read it" });
      expect(res.status, url).toBe(403);
      expect(((await res.json()) as Json).error).toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/blocked by policy/),
      });
    }
  });

  it("a start page that redirects to an address the policy refuses ends FAILED with CONTENT_POLICY_VIOLATION", async () => {
    h.model.setScript(() => call("done", { success: true, result: {} }));
    const to = encodeURIComponent("http://127.0.0.1:1/admin");
    const run = (await (
      await h.ctx.postJson(key, "/v1/automation/run", { url: `${h.site.url}/redirect?to=${to}`, goal: "Open it" })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "CONTENT_POLICY_VIOLATION", category: "AGENT_FAILURE" } });
    expect(run.error.message).toMatch(/blocked by policy: http:\/\/127\.0\.0\.1:1\/admin/);
  });

  it("browser_profile stealth hides the headless tells that lite keeps", async () => {
    const read = (t: Parameters<typeof stateText>[0]) => {
      const text = stateText(t);
      return {
        headless: /Header UA: [^\n]*HeadlessChrome/.test(text),
        webdriver: /webdriver: (\w+)/.exec(text)?.[1] ?? "?",
      };
    };
    h.model.setScript((t) => call("done", { success: true, result: read(t) }));
    const lite = (await (
      await h.ctx.postJson(key, "/v1/automation/run", { url: `${h.site.url}/whoami`, goal: "Who am I?" })
    ).json()) as Json;
    expect(lite.result).toEqual({ headless: true, webdriver: "true" });
    const stealth = (await (
      await h.ctx.postJson(key, "/v1/automation/run", {
        url: `${h.site.url}/whoami`,
        goal: "Who am I?",
        browser_profile: "stealth",
      })
    ).json()) as Json;
    expect(stealth.result).toEqual({ headless: false, webdriver: "undefined" });
  });

  it("a model that stays rate-limited ends the run FAILED with SERVICE_BUSY and a retry_after", async () => {
    // A Retry-After beyond what the provider wrapper waits for (60 s) fails the run at once with the hint.
    h.model.setScript(() => ({ fail: "rate_limited", retryAfter: "120" }));
    const run = (await (await h.ctx.postJson(key, "/v1/automation/run", body())).json()) as Json;
    expect(run).toMatchObject({
      status: "FAILED",
      error: { code: "SERVICE_BUSY", category: "SYSTEM_FAILURE", retry_after: 120 },
    });
  });

  it("the duration budget ends a run FAILED with TIMEOUT", async () => {
    h.model.setScript(() => call("wait_for", { seconds: 10 }));
    const run = (await (
      await h.ctx.postJson(key, "/v1/automation/run", { ...body(), agent_config: { max_duration_seconds: 10 } })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "TIMEOUT", category: "SYSTEM_FAILURE" } });
    expect(Date.parse(run.finished_at) - Date.parse(run.started_at)).toBeLessThan(15_000);
  }, 40_000);

  it("keeps worker state clean", () => {
    expect(worker.inflight()).toBe(0);
  });
});

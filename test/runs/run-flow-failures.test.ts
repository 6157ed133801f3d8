import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { call, sequence } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { type Json, loginSteps, useRunSuite } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: how whole runs fail, against the fixture site, real Chromium, the Postgres queue
 * and an in-process worker: credits, blocked sites, the step and duration budgets, the output schema,
 * the address policy and a rate-limited model.
 * The scripted model finds each element it needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("how runs fail on $driver", ({ open }) => {
  const s = useRunSuite(open);

  it("a run that exhausts the account's credits mid-way ends FAILED with INSUFFICIENT_CREDITS (BILLING_FAILURE)", async () => {
    const poor = await s.h.newKey({ credits: 2 });
    s.h.model.setScript(sequence(login, s.errors));
    const run = (await (await s.h.ctx.postJson(poor.key, "/v1/automation/run", s.body())).json()) as Json;
    expect(run).toMatchObject({
      status: "FAILED",
      result: null,
      error: { code: "INSUFFICIENT_CREDITS", category: "BILLING_FAILURE", retry_after: null },
      credits_used: 2,
    });
    const account = (await (await s.h.ctx.call(poor.key, "/v1/account")).json()) as Json;
    expect(account.credit_balance).toBe(0);
    // Before acceptance the same situation is a 403.
    const refused = await s.h.ctx.postJson(poor.key, "/v1/automation/run-async", s.body());
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).error).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/credits/),
    });
  });

  it("a bot-challenge start page ends FAILED with SITE_BLOCKED", async () => {
    s.h.model.setScript(() => call("done", { success: true, result: {} }));
    const run = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { url: `${s.h.site.url}/challenge`, goal: "Read the page" })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED", category: "AGENT_FAILURE" } });
  });

  it("the step budget (beta max_steps) ends FAILED with MAX_STEPS_EXCEEDED", async () => {
    const beta = await s.h.newKey({ entitlements: ["beta"] });
    s.h.model.setScript(() => call("scroll", { direction: "down" }));
    const run = (await (
      await s.h.ctx.postJson(beta.key, "/v1/automation/run", { ...s.body(), agent_config: { max_steps: 2 } })
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
    s.h.model.setScript(() => call("done", { success: true, result: { account: 4711 } }));
    const ok = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { ...s.body(), output_schema: schema })
    ).json()) as Json;
    expect(ok).toMatchObject({ status: "COMPLETED", result: { account: 4711 } });
    s.h.model.turns.length = 0;
    s.h.model.setScript(() => call("done", { success: true, result: { account: "forty-seven" } }));
    const bad = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { ...s.body(), output_schema: schema })
    ).json()) as Json;
    expect(bad).toMatchObject({ status: "FAILED", result: null, error: { code: "TASK_FAILED" } });
    expect(s.h.model.turns).toHaveLength(2);
  });

  it("a start url the address policy refuses is 403 FORBIDDEN before acceptance", async () => {
    for (const url of [
      "http://127.0.0.1:1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://localhost/",
      "http://10.0.0.1/",
    ]) {
      const res = await s.h.ctx.postJson(s.key, "/v1/automation/run-async", { url, goal: "Read it" });
      expect(res.status, url).toBe(403);
      expect(((await res.json()) as Json).error).toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/blocked by policy/),
      });
    }
  });

  it("a start page that redirects to an address the policy refuses ends FAILED with CONTENT_POLICY_VIOLATION", async () => {
    s.h.model.setScript(() => call("done", { success: true, result: {} }));
    const to = encodeURIComponent("http://127.0.0.1:1/admin");
    const run = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { url: `${s.h.site.url}/redirect?to=${to}`, goal: "Open it" })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "CONTENT_POLICY_VIOLATION", category: "AGENT_FAILURE" } });
    expect(run.error.message).toMatch(/blocked by policy: http:\/\/127\.0\.0\.1:1\/admin/);
  });

  it("a model that stays rate-limited ends the run FAILED with SERVICE_BUSY and a retry_after", async () => {
    // A Retry-After beyond what the provider wrapper waits for (60 s) fails the run at once with the hint.
    s.h.model.setScript(() => ({ fail: "rate_limited", retryAfter: "120" }));
    const run = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body())).json()) as Json;
    expect(run).toMatchObject({
      status: "FAILED",
      error: { code: "SERVICE_BUSY", category: "SYSTEM_FAILURE", retry_after: 120 },
    });
  });

  it("the duration budget ends a run FAILED with TIMEOUT", async () => {
    s.h.model.setScript(() => call("wait_for", { seconds: 10 }));
    const run = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { ...s.body(), agent_config: { max_duration_seconds: 10 } })
    ).json()) as Json;
    expect(run).toMatchObject({ status: "FAILED", error: { code: "TIMEOUT", category: "SYSTEM_FAILURE" } });
    expect(Date.parse(run.finished_at) - Date.parse(run.started_at)).toBeLessThan(15_000);
  }, 40_000);
});

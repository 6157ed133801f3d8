import { describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { call, sequence, stateText } from "../agent/loop/harness.ts";
import { driverCases } from "../helpers/databases.ts";
import { LOGIN } from "../helpers/fixture-site.ts";
import { type Json, loginSteps, PUBLIC_URL, useRunSuite } from "../helpers/run-harness.ts";
import { CHROME } from "../helpers/test-session.ts";

/**
 * Spec 4.2, 6.1, 3.1: whole runs through the blocking entry point (POST /v1/automation/run), against
 * the fixture site, real Chromium, the Postgres queue and an in-process worker: the result, the run and
 * its steps through GET, who may see a run, which runs can be cancelled, and the browser profile.
 * The scripted model finds each element it needs in the page state it is sent.
 */

const login = loginSteps();

describe.skipIf(!isExecutable(CHROME)).each(driverCases(["pglite"]))("blocking runs (/run) on $driver", ({ open }) => {
  const s = useRunSuite(open);

  it("POST /v1/automation/run blocks until COMPLETED and returns the result", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const res = await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body());
    const run = (await res.json()) as Json;
    expect(s.errors).toEqual([]);
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
    const got = (await (await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}`)).json()) as Json;
    expect(got).toEqual(run);
    const steps = (await (await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}/steps`)).json()) as Json;
    expect(steps.steps.map((step: Json) => step.action.name)).toEqual(["type", "type", "click", "done"]);
    expect(steps.steps.every((step: Json) => step.purpose.length > 0)).toBe(true);
    expect(JSON.stringify(steps)).not.toContain(LOGIN.password);
    const account = (await (await s.h.ctx.call(s.key, "/v1/account")).json()) as Json;
    expect(account.credit_balance).toBe(1000 - 4);
  });

  it("cancelling a /run run is refused: 400 INVALID_INPUT", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const run = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body())).json()) as Json;
    const res = await s.h.ctx.call(s.key, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/cannot be cancelled/),
    });
  });

  it("run ids of another account or key scope are 404", async () => {
    s.h.model.setScript(sequence(login, s.errors));
    const run = (await (await s.h.ctx.postJson(s.key, "/v1/automation/run", s.body())).json()) as Json;
    const other = await s.h.newKey();
    for (const path of [`/v1/runs/${run.run_id}`, `/v1/runs/${run.run_id}/steps`, `/v1/runs/${run.run_id}/steps/1/screenshot`]) {
      const res = await s.h.ctx.call(other.key, path);
      expect(res.status).toBe(404);
    }
    const cancel = await s.h.ctx.call(other.key, `/v1/runs/${run.run_id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(404);
    // An MCP-scoped key of the same account does not see REST runs.
    const mcp = await s.h.ctx.services.apiKeys.create({ accountId: s.accountId, scope: "mcp" });
    expect((await s.h.ctx.call(mcp.key, `/v1/runs/${run.run_id}`)).status).toBe(404);
  });

  it("browser_profile stealth hides the headless tells that lite keeps", async () => {
    const read = (t: Parameters<typeof stateText>[0]) => {
      const text = stateText(t);
      return {
        headless: /Header UA: [^\n]*HeadlessChrome/.test(text),
        webdriver: /webdriver: (\w+)/.exec(text)?.[1] ?? "?",
      };
    };
    s.h.model.setScript((t) => call("done", { success: true, result: read(t) }));
    const lite = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", { url: `${s.h.site.url}/whoami`, goal: "Who am I?" })
    ).json()) as Json;
    expect(lite.result).toEqual({ headless: true, webdriver: "true" });
    const stealth = (await (
      await s.h.ctx.postJson(s.key, "/v1/automation/run", {
        url: `${s.h.site.url}/whoami`,
        goal: "Who am I?",
        browser_profile: "stealth",
      })
    ).json()) as Json;
    expect(stealth.result).toEqual({ headless: false, webdriver: "false" });
  });
});

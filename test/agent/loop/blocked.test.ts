import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import type { RunSession } from "../../../containers/browser/run-session.ts";
import { type AgentFixtureSite, startFixtureSite } from "../../helpers/fixture-site.ts";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.ts";
import { CHROME, launchTestBrowser, type TestBrowser } from "../../helpers/test-session.ts";
import { call, idx, provider, run, sequence, task } from "./harness.ts";

/** Runs the site or the browser ends: bot walls and CAPTCHAs (SITE_BLOCKED), a browser that dies (SERVICE_BUSY). */

describe.skipIf(!isExecutable(CHROME))("agent loop: blocked sites and crashed browsers", () => {
  let browser: TestBrowser;
  let site: AgentFixtureSite;
  let server: ScriptedModel;
  let session: RunSession;
  let errors: string[];

  beforeAll(async () => {
    [browser, site, server] = await Promise.all([launchTestBrowser(), startFixtureSite(), startScriptedModel([])]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), site?.close(), server?.close()]);
  });
  beforeEach(async (ctx) => {
    errors = [];
    server.turns.length = 0;
    session = await browser.open();
    ctx.onTestFinished(() => session.close());
  });
  const openai = () => provider(server, "openai");

  it("fails with SITE_BLOCKED on a bot challenge at the start URL, without asking the model", async () => {
    server.setScript(sequence([], errors));
    const r = await run(task(`${site.url}/challenge`, "Read the page"), { model: openai(), session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED", category: "AGENT_FAILURE" } });
    if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/bot-protection challenge \(HTTP 403\)/);
    expect(server.turns).toHaveLength(0);
  });

  it("fails with SITE_BLOCKED when a later page is a challenge or a CAPTCHA", async () => {
    for (const path of ["/challenge", "/captcha"]) {
      server.setScript(sequence([() => call("navigate", { url: `${site.url}${path}` })], errors));
      const r = await run(task(`${site.url}/`, "Read the page"), { model: openai(), session });
      expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED" } });
      expect(r.steps).toHaveLength(1);
    }
  });

  it("ends FAILED SERVICE_BUSY with retry_after when Chromium dies during a step", async () => {
    const own = await launchTestBrowser();
    try {
      const doomed = await own.open();
      server.setScript((t) => {
        own.browser.process()?.kill("SIGKILL");
        return call("click", { index: idx(t, /\[(\d+) link\]Next item/) });
      });
      const r = await run(task(`${site.url}/infinite`, "x"), { model: openai(), session: doomed });
      expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SERVICE_BUSY", retry_after: 30 } });
      if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/browser crashed/);
      expect(doomed.crashed()).toBe(true);
    } finally {
      await own.close();
    }
  });
});

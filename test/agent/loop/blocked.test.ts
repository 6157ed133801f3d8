import { describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { CHROME, launchTestBrowser } from "../../helpers/test-session.ts";
import { call, idx, run, sequence, task } from "./harness.ts";
import { useLoopFixture } from "./loop-fixture.ts";

/** Runs the site or the browser ends: bot walls and CAPTCHAs (SITE_BLOCKED), a browser that dies (SERVICE_BUSY). */

describe.skipIf(!isExecutable(CHROME))("agent loop: blocked sites and crashed browsers", () => {
  const fx = useLoopFixture();

  it("fails with SITE_BLOCKED on a bot challenge at the start URL, without asking the model", async () => {
    fx.server.setScript(sequence([], fx.errors));
    const r = await run(task(`${fx.site.url}/challenge`, "Read the page"), { model: fx.openai(), session: fx.session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED", category: "AGENT_FAILURE" } });
    if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/bot-protection challenge \(HTTP 403\)/);
    expect(fx.server.turns).toHaveLength(0);
  });

  it("fails with SITE_BLOCKED when a later page is a challenge or a CAPTCHA", async () => {
    for (const path of ["/challenge", "/captcha"]) {
      fx.server.setScript(sequence([() => call("navigate", { url: `${fx.site.url}${path}` })], fx.errors));
      const r = await run(task(`${fx.site.url}/`, "Read the page"), { model: fx.openai(), session: fx.session });
      expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SITE_BLOCKED" } });
      expect(r.steps).toHaveLength(1);
    }
  });

  it("ends FAILED SERVICE_BUSY with retry_after when Chromium dies during a step", async () => {
    const own = await launchTestBrowser();
    try {
      const doomed = await own.open();
      fx.server.setScript((t) => {
        own.browser.process()?.kill("SIGKILL");
        return call("click", { index: idx(t, /\[(\d+) link\]Next item/) });
      });
      const r = await run(task(`${fx.site.url}/infinite`, "x"), { model: fx.openai(), session: doomed });
      expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "SERVICE_BUSY", retry_after: 30 } });
      if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/browser crashed/);
      expect(doomed.crashed()).toBe(true);
    } finally {
      await own.close();
    }
  });
});

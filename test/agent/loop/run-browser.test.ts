import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isExecutable } from "../../../containers/browser/chromium-process.ts";
import { createRunBrowserPool } from "../../../containers/browser/run-browser.ts";
import type { RunBrowserPool, RunSession } from "../../../containers/browser/run-session.ts";
import { type AgentFixtureSite, LOGIN, startFixtureSite } from "../../helpers/fixture-site.ts";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.ts";
import { CHROME } from "../../helpers/test-session.ts";
import { call, idx, provider, quietLogger, run, sequence, stateText, task } from "./harness.ts";

/**
 * The agent on the production browser pool (createRunBrowserPool): the fixture site's port is
 * exempt from the address policy, the second origin's port is not, so it stands for a private
 * address a page must not reach.
 */

describe.skipIf(!isExecutable(CHROME))("agent loop on the run browser pool", () => {
  let site: AgentFixtureSite;
  let server: ScriptedModel;
  let pool: RunBrowserPool;
  let session: RunSession;
  let errors: string[];

  beforeAll(async () => {
    [site, server] = await Promise.all([startFixtureSite(), startScriptedModel([])]);
    const port = Number(new URL(site.url).port);
    pool = createRunBrowserPool({
      executablePath: CHROME,
      allowPrivateHosts: [{ host: "127.0.0.1", port }],
      logger: quietLogger,
      // No test reaches real DNS: every name fails the way a name that does not exist does.
      resolver: async (hostname) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      },
    });
  });
  afterAll(async () => {
    await pool?.close();
    await Promise.all([site?.close(), server?.close()]);
  });
  beforeEach(async (ctx) => {
    errors = [];
    session = await pool.open();
    ctx.onTestFinished(() => session.close());
  });

  it("logs in (Anthropic wire)", async () => {
    server.setScript(
      sequence(
        [
          (t) => call("type", { index: idx(t, /Email \[(\d+) textbox:email/), text: LOGIN.email }),
          (t) => call("type", { index: idx(t, /Password \[(\d+) textbox:password/), text: LOGIN.password, submit: true }),
          (t) =>
            call("done", { success: stateText(t).includes("Welcome, Ada"), result: "Welcome, Ada", message: "not signed in" }),
        ],
        errors,
      ),
    );
    const r = await run(task(`${site.url}/login`, "Sign in"), { model: provider(server, "anthropic"), session });
    expect(errors).toEqual([]);
    expect(r.outcome).toEqual({ status: "COMPLETED", result: "Welcome, Ada" });
    expect(r.steps[1]?.message).toMatch(/Pressed Enter\. The page navigated/);
  });

  it("fails with CONTENT_POLICY_VIOLATION when the address policy refuses the start URL", async () => {
    const r = await run(task(`${site.origin2Url}/partner`, "x"), { model: provider(server, "openai"), session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "CONTENT_POLICY_VIOLATION", category: "AGENT_FAILURE" } });
    if (r.outcome.status === "FAILED") expect(r.outcome.error.message).toMatch(/blocked by policy/);
  });

  it("a start URL whose host name does not resolve fails TASK_FAILED (navigation), not CONTENT_POLICY_VIOLATION", async () => {
    const turns = server.turns.length;
    const r = await run(task("http://no-such-host.example.com/", "x"), { model: provider(server, "openai"), session });
    expect(r.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED", category: "AGENT_FAILURE" } });
    if (r.outcome.status === "FAILED") {
      expect(r.outcome.error.message).toMatch(/host name does not resolve/);
      expect(r.outcome.error.message).toContain("no-such-host.example.com");
    }
    expect(server.turns).toHaveLength(turns);
  });

  it("reports a refused navigation to the model; strict mode stops there", async () => {
    const script = () =>
      sequence(
        [
          () => call("navigate", { url: `${site.origin2Url}/partner` }),
          (t) => {
            if (!t.lastToolResults[0]?.text.includes("refused")) throw new Error(String(t.lastToolResults[0]?.text));
            return call("done", { success: false, message: "the partner site is off limits" });
          },
        ],
        errors,
      );
    server.setScript(script());
    const standard = await run(task(`${site.url}/`, "x"), { model: provider(server, "openai"), session });
    expect(errors).toEqual([]);
    expect(standard.outcome).toMatchObject({
      status: "FAILED",
      error: { code: "TASK_FAILED", message: "the partner site is off limits" },
    });
    server.setScript(script());
    const strict = await run(task(`${site.url}/`, "x", { mode: "strict" }), { model: provider(server, "openai"), session });
    expect(strict.outcome).toMatchObject({ status: "FAILED", error: { code: "TASK_FAILED" } });
    if (strict.outcome.status === "FAILED") expect(strict.outcome.error.message).toMatch(/Strict mode.*refused/);
  });
});

import { afterAll, beforeAll, beforeEach } from "vitest";
import type { ModelProvider } from "../../../containers/agent/model/types.ts";
import type { RunSession } from "../../../containers/browser/run-session.ts";
import { type AgentFixtureSite, startFixtureSite } from "../../helpers/fixture-site.ts";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.ts";
import { launchTestBrowser, type TestBrowser } from "../../helpers/test-session.ts";
import { provider } from "./harness.ts";

/** What an agent-loop suite works with; the fields are set by the hooks, so read them inside tests only. */
export interface LoopFixture {
  /** One Chromium for the whole file. */
  browser: TestBrowser;
  /** The fixture site (one for the whole file). */
  site: AgentFixtureSite;
  /** The scripted model server (one for the whole file); its recorded turns are cleared before each test. */
  server: ScriptedModel;
  /** A fresh browser session for each test, closed when the test ends. */
  session: RunSession;
  /** Script errors of the current test (for sequence()), emptied before each test. */
  errors: string[];
  /** A provider on the OpenAI wire against the scripted server. */
  openai(): ModelProvider;
}

/**
 * Registers the hooks the agent-loop suites share, in the describe block it is called from:
 * Chromium, the fixture site and the scripted model server for the file, and a fresh session,
 * error list and turn record for each test.
 */
export function useLoopFixture(): LoopFixture {
  const fx = {
    errors: [] as string[],
    openai: () => provider(fx.server, "openai"),
  } as LoopFixture;

  beforeAll(async () => {
    [fx.browser, fx.site, fx.server] = await Promise.all([launchTestBrowser(), startFixtureSite(), startScriptedModel([])]);
  });
  afterAll(async () => {
    await Promise.all([fx.browser?.close(), fx.site?.close(), fx.server?.close()]);
  });
  beforeEach(async (ctx) => {
    fx.errors = [];
    fx.server.turns.length = 0;
    const session = await fx.browser.open();
    fx.session = session;
    ctx.onTestFinished(() => session.close());
  });
  return fx;
}

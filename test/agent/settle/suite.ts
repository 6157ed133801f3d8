import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { openUrl } from "../../../containers/agent/actions.ts";
import type { RunSession } from "../../../containers/browser/run-session.ts";
import { launchTestBrowser, type TestBrowser } from "../../helpers/test-session.ts";
import { type SettleSite, startSettleSite } from "./settle-site.ts";

/**
 * What every settle and action suite sets up (call it inside its describe): one Chromium and one
 * settle site for the file, a fresh run session for each test (closed when the test ends), and
 * `open(path)`, which opens a page of the site the way the agent does and returns the active page.
 */
export function settleSuite(): { readonly session: RunSession; readonly site: SettleSite; open(path: string): Promise<Page> } {
  let browser: TestBrowser | undefined;
  let site: SettleSite | undefined;
  let session: RunSession | undefined;
  beforeAll(async () => {
    [browser, site] = await Promise.all([launchTestBrowser(), startSettleSite()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), site?.close()]);
  });
  beforeEach(async (ctx) => {
    const opened = await (browser as TestBrowser).open();
    session = opened;
    ctx.onTestFinished(() => opened.close());
  });
  const suite = {
    get session(): RunSession {
      if (!session) throw new Error("settleSuite: no session outside a test");
      return session;
    },
    get site(): SettleSite {
      if (!site) throw new Error("settleSuite: the site starts in beforeAll");
      return site;
    },
    async open(path: string): Promise<Page> {
      const res = await openUrl(suite.session, suite.session.activePage(), `${suite.site.url}${path}`);
      expect(res.ok, res.message).toBe(true);
      return suite.session.activePage();
    },
  };
  return suite;
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyProfileState, changedDomains, readProfileState, watchVisits } from "../../containers/browser/profile-state.ts";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import type { RunBrowserPool } from "../../containers/browser/run-session.ts";
import type { DomainState } from "../../functions/profiles/profile-state.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";
import { type ProfileSite, seen, startProfileSite } from "./site.ts";

const hasChrome = chromeAvailable("profile run-session tests");

/**
 * The same functions on what a run really gets: RunSession.context from the run browser pool, its
 * first tab already open, every request through the address policy's interception and the
 * context's own egress proxy.
 */
describe.skipIf(!hasChrome)("profile state on a run's browser context", () => {
  let site: ProfileSite;
  let pool: RunBrowserPool;

  beforeAll(async () => {
    site = await startProfileSite();
    pool = createRunBrowserPool({
      executablePath: CHROME,
      allowPrivateHosts: [
        { host: "127.0.0.1", port: site.port },
        { host: "localhost", port: site.port },
      ],
    });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  it("loads before the first navigation, reads back after the run left the site, and leaves the tabs alone", async () => {
    const profile: DomainState[] = [
      {
        domain: "localhost",
        cookies: [
          {
            name: "sid",
            value: "s1",
            domain: "localhost",
            path: "/",
            expires: -1,
            httpOnly: true,
            secure: false,
            sameSite: "Lax",
          },
        ],
        localStorage: [{ origin: site.url("localhost", ""), items: [["token", "t1"]] }],
      },
    ];
    const session = await pool.open();
    try {
      const applied = await applyProfileState(session.context, profile);
      const visits = watchVisits(session.context);
      const tab = session.activePage();
      await tab.goto(site.url("localhost"));
      expect(site.cookieHeader("localhost", "/page")).toBe("sid=s1");
      expect(await seen(tab)).toEqual([["token", "t1"]]);
      await tab.evaluate(() => localStorage.setItem("token", "t2"));
      await tab.goto(site.url("127.0.0.1"));

      const now = await readProfileState(session.context, visits.origins());
      const changes = changedDomains(applied.domains, now);
      expect(changes.map((c) => c.domain)).toEqual(["localhost"]);
      expect(changes[0]?.state?.localStorage).toEqual([{ origin: site.url("localhost", ""), items: [["token", "t2"]] }]);
      expect(changes[0]?.state?.cookies.map((c) => [c.name, c.value, c.httpOnly])).toEqual([["sid", "s1", true]]);
      expect(visits.domains()).toEqual(["localhost", "127.0.0.1"]);
      // The hidden reader page was never a tab of the run, and nothing was refused on its account.
      expect(session.pages()).toEqual([tab]);
      expect(session.activePage()).toBe(tab);
      expect(session.blocked()).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

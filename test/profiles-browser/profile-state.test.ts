import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyProfileState,
  changedDomains,
  ProfileStateError,
  readProfileState,
  watchVisits,
} from "../../containers/browser/profile-state.ts";
import type { DomainState, ProfileCookie } from "../../functions/profiles/profile-state.ts";
import { chromeAvailable } from "../helpers/test-session.ts";
import { waitFor } from "../helpers/wait.ts";
import { bigProfile, framesUrl, launchProfileBrowser, type ProfileSite, seen, setCookieUrl, startProfileSite } from "./site.ts";

const hasChrome = chromeAvailable("profile state tests");

const byName = (state: DomainState[], domain: string) =>
  new Map((state.find((d) => d.domain === domain)?.cookies ?? []).map((c) => [c.name, c]));
const storageOf = (state: DomainState[], origin: string) =>
  state.flatMap((d) => d.localStorage).find((s) => s.origin === origin)?.items ?? [];
const sorted = (items: [string, string][]) => [...items].sort((a, b) => (a[0] < b[0] ? -1 : 1));
const cookieNames = (header: string | undefined) =>
  (header ?? "")
    .split(";")
    .map((p) => p.trim())
    .filter(Boolean)
    .sort();

describe.skipIf(!hasChrome)("profile state in a browser context", () => {
  let browser: Browser;
  let site: ProfileSite;
  const contexts: BrowserContext[] = [];
  const fresh = async () => {
    const c = await browser.createBrowserContext();
    contexts.push(c);
    return c;
  };
  const open = async (context: BrowserContext, url: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(url);
    return page;
  };

  beforeAll(async () => {
    [browser, site] = await Promise.all([launchProfileBrowser(), startProfileSite()]);
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    await browser?.close();
    await site?.close();
  });

  describe("round trip", () => {
    let saved: DomainState[];
    const lh = () => `http://localhost:${site.port}`;
    const ip = () => `http://127.0.0.1:${site.port}`;
    const www = () => `http://www.alpha.test:${site.port}`;

    beforeAll(async () => {
      // Context A: a person logs in to three sites.
      const a = await fresh();
      const visits = watchVisits(a);
      const page = await a.newPage();
      await page.goto(
        setCookieUrl(site, "localhost", [
          "host=1; Path=/",
          "http=2; Path=/; HttpOnly",
          "persist=3; Path=/; Max-Age=86400; SameSite=Strict",
          "sec=4; Path=/; Secure; SameSite=None",
          "chips=5; Path=/; Secure; SameSite=None; Partitioned",
          "high=6; Path=/; Priority=High",
        ]),
      );
      await page.evaluate(() => {
        localStorage.setItem("token", "abc");
        localStorage.setItem("theme", "dark");
      });
      // A cross-site iframe sets a partitioned (CHIPS) cookie under the top-level site localhost.
      await page.goto(
        framesUrl(site, "localhost", [setCookieUrl(site, "127.0.0.1", ["tp=7; Path=/; Secure; SameSite=None; Partitioned"])]),
      );
      await page.goto(setCookieUrl(site, "www.alpha.test", ["dom=8; Domain=alpha.test; Path=/", "only=9; Path=/"]));
      await page.evaluate(() => localStorage.setItem("a", "1"));
      await page.goto(setCookieUrl(site, "127.0.0.1", ["ip=10; Path=/"]));
      await page.evaluate(() => localStorage.setItem("x", "y"));
      saved = await readProfileState(a, visits.origins());
      visits.stop();
    });

    it("reads every cookie with its attributes, partitioned ones included, grouped by registrable domain", () => {
      expect(saved.map((d) => d.domain)).toEqual(["127.0.0.1", "alpha.test", "localhost"]);
      const local = byName(saved, "localhost");
      expect([...local.keys()].sort()).toEqual(["chips", "high", "host", "http", "persist", "sec"]);
      expect(local.get("host")).toMatchObject({ domain: "localhost", path: "/", expires: -1, httpOnly: false, secure: false });
      expect(local.get("http")?.httpOnly).toBe(true);
      expect(local.get("persist")?.sameSite).toBe("Strict");
      expect(local.get("persist")?.expires).toBeGreaterThan(Date.now() / 1000 + 86_000);
      expect(local.get("sec")).toMatchObject({ secure: true, sameSite: "None", sourceScheme: "Secure" });
      expect(local.get("chips")?.partitionKey).toEqual({ topLevelSite: "http://localhost", hasCrossSiteAncestor: false });
      expect(local.get("high")?.priority).toBe("High");
      const alpha = byName(saved, "alpha.test");
      expect(alpha.get("dom")?.domain).toBe(".alpha.test");
      expect(alpha.get("only")?.domain).toBe("www.alpha.test");
      const ipCookies = byName(saved, "127.0.0.1");
      expect(ipCookies.get("ip")?.domain).toBe("127.0.0.1");
      expect(ipCookies.get("tp")?.partitionKey).toEqual({ topLevelSite: "http://localhost", hasCrossSiteAncestor: true });
      expect(sorted(storageOf(saved, lh()))).toEqual([
        ["theme", "dark"],
        ["token", "abc"],
      ]);
      expect(storageOf(saved, www())).toEqual([["a", "1"]]);
      expect(storageOf(saved, ip())).toEqual([["x", "y"]]);
    });

    it("loads it into a fresh context: the server gets the cookies, the page's first script sees the localStorage", async () => {
      const b = await fresh();
      const applied = await applyProfileState(b, saved);
      expect(applied.cookies).toBe(10);
      expect(applied.origins).toBe(3);
      expect(applied.skipped).toEqual({ expiredCookies: 0, cookiesOverCap: 0, storageItemsOverCap: 0 });
      // The baseline is what was saved, as Chromium holds it.
      expect(changedDomains(saved, applied.domains)).toEqual([]);

      const visits = watchVisits(b);
      const page = await open(b, framesUrl(site, "localhost", [site.url("127.0.0.1", "/page")]));
      expect(cookieNames(site.cookieHeader("localhost", "/frames"))).toEqual([
        "chips=5",
        "high=6",
        "host=1",
        "http=2",
        "persist=3",
        "sec=4",
      ]);
      // The cross-site iframe gets the cookie partitioned under localhost (and not ip=10: unpartitioned, SameSite=Lax).
      expect(cookieNames(site.cookieHeader("127.0.0.1", "/page"))).toEqual(["tp=7"]);
      expect(await seen(page)).toEqual([
        ["theme", "dark"],
        ["token", "abc"],
      ]);
      // The cross-site iframe's storage is partitioned under localhost: the profile's 127.0.0.1 items are not for it.
      const frame = page.frames().find((f) => f.url().startsWith(`http://127.0.0.1:${site.port}`));
      expect(frame && (await seen(frame))).toEqual([]);

      await page.goto(site.url("www.alpha.test"));
      expect(cookieNames(site.cookieHeader("www.alpha.test", "/page"))).toEqual(["dom=8", "only=9"]);
      expect(await seen(page)).toEqual([["a", "1"]]);
      await page.goto(site.url("alpha.test"));
      expect(cookieNames(site.cookieHeader("alpha.test", "/page"))).toEqual(["dom=8"]);
      await page.goto(site.url("127.0.0.1"));
      expect(cookieNames(site.cookieHeader("127.0.0.1", "/page"))).toEqual(["ip=10"]);
      expect(await seen(page)).toEqual([["x", "y"]]);

      expect(await applied.cookiesIn).toEqual({ refusedCookies: 0 });
      // Visiting changed nothing.
      const now = await readProfileState(b, visits.origins());
      expect(changedDomains(applied.domains, now)).toEqual([]);
      expect(changedDomains(saved, now)).toEqual([]);
    });

    it("tells which domains changed: one domain's cookie, another cleared", async () => {
      const c = await fresh();
      const applied = await applyProfileState(c, saved);
      const visits = watchVisits(c);
      const page = await open(c, setCookieUrl(site, "localhost", ["host=changed; Path=/"]));
      await page.goto(setCookieUrl(site, "127.0.0.1", ["ip=; Path=/; Max-Age=0"]));
      await page.evaluate(() => localStorage.clear());
      // The partitioned tp cookie lives under localhost's partition: cleared through the browser here.
      const session = await page.createCDPSession();
      await session.send("Network.deleteCookies", {
        name: "tp",
        domain: "127.0.0.1",
        partitionKey: { topLevelSite: "http://localhost", hasCrossSiteAncestor: true },
      });
      const now = await readProfileState(c, visits.origins());
      const changes = changedDomains(applied.domains, now);
      expect(changes.map((ch) => [ch.domain, ch.state === null])).toEqual([
        ["127.0.0.1", true],
        ["localhost", false],
      ]);
      expect(byName(changes[1]?.state ? [changes[1].state] : [], "localhost").get("host")?.value).toBe("changed");
    });
  });

  describe("the localStorage loader", () => {
    const items = (host: string, entries: [string, string][]): DomainState => ({
      domain: host.replace(/^www\./, ""),
      cookies: [],
      localStorage: [{ origin: site.url(host, ""), items: entries }],
    });

    it("writes an origin once: the site's later changes and a clear() are never undone", async () => {
      const context = await fresh();
      await applyProfileState(context, [items("localhost", [["k", "loaded"]])]);
      const page = await open(context, site.url("localhost"));
      expect(await seen(page)).toEqual([["k", "loaded"]]);
      await page.evaluate(() => localStorage.setItem("k", "site"));
      await page.reload();
      expect(await seen(page)).toEqual([["k", "site"]]);
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      expect(await seen(page)).toEqual([]);
      const tab = await open(context, site.url("localhost"));
      expect(await seen(tab)).toEqual([]);
    });

    it("reaches same-site iframes, popups and new tabs before their first script", async () => {
      const context = await fresh();
      await applyProfileState(context, [
        {
          domain: "alpha.test",
          cookies: [],
          localStorage: [
            { origin: site.url("www.alpha.test", ""), items: [["w", "1"]] },
            { origin: site.url("alpha.test", ""), items: [["apex", "2"]] },
            { origin: site.url("app.alpha.test", ""), items: [["app", "3"]] },
          ],
        },
        items("localhost", [["lh", "4"]]),
      ]);
      const page = await open(context, framesUrl(site, "www.alpha.test", [site.url("alpha.test")]));
      expect(await seen(page)).toEqual([["w", "1"]]);
      const frame = page.frames().find((f) => f.url().startsWith(`http://alpha.test:`));
      expect(frame && (await seen(frame))).toEqual([["apex", "2"]]);

      const popup = new Promise<Page | null>((resolve) => context.once("targetcreated", (t) => resolve(t.page())));
      await page.evaluate((url) => void window.open(url), site.url("app.alpha.test"));
      const opened = await popup;
      if (!opened) throw new Error("no popup");
      await waitFor(() => opened.evaluate(() => "__seen" in window).catch(() => false));
      expect(await seen(opened)).toEqual([["app", "3"]]);

      const tab = await open(context, site.url("localhost"));
      expect(await seen(tab)).toEqual([["lh", "4"]]);
    });

    it("loads into a context whose page is already open (a run's first tab), and into the default context (a session's)", async () => {
      const context = await fresh();
      const first = await context.newPage();
      await applyProfileState(context, [items("localhost", [["k", "v"]])]);
      await first.goto(site.url("localhost"));
      expect(await seen(first)).toEqual([["k", "v"]]);

      const other = await launchProfileBrowser();
      try {
        const def = other.defaultBrowserContext();
        const [tab] = await def.pages();
        const applied = await applyProfileState(def, [
          { ...items("localhost", [["d", "1"]]), cookies: [cookie({ name: "s", domain: "localhost" })] },
        ]);
        expect(applied.cookies).toBe(1);
        const page = tab ?? (await def.newPage());
        await page.goto(site.url("localhost"));
        expect(await seen(page)).toEqual([["d", "1"]]);
        expect(site.cookieHeader("localhost", "/page")).toBe("s=v");
        const now = await readProfileState(def, []);
        expect(changedDomains(applied.domains, now)).toEqual([]);
      } finally {
        await other.close();
      }
    });
  });

  describe("visits", () => {
    it("records main frames, iframes on another host, popups and new tabs", async () => {
      const context = await fresh();
      const visits = watchVisits(context);
      const page = await open(context, framesUrl(site, "localhost", [site.url("127.0.0.1")]));
      await page.evaluate((url) => void window.open(url), site.url("www.alpha.test"));
      await open(context, site.url("beta.test"));
      await waitFor(() => visits.domains().length === 4);
      expect([...visits.domains()].sort()).toEqual(["127.0.0.1", "alpha.test", "beta.test", "localhost"]);
      expect([...visits.origins()].sort()).toEqual(
        [site.url("127.0.0.1", ""), site.url("beta.test", ""), site.url("localhost", ""), site.url("www.alpha.test", "")].sort(),
      );
      visits.stop();
      await page.goto(site.url("gamma.test"));
      expect(visits.domains()).not.toContain("gamma.test");
    });

    it("records out-of-process iframes when sites are isolated", async () => {
      const isolated = await launchProfileBrowser({ siteIsolation: true });
      try {
        const context = await isolated.createBrowserContext();
        const visits = watchVisits(context);
        const page = await context.newPage();
        await page.goto(framesUrl(site, "localhost", [site.url("www.alpha.test"), site.url("127.0.0.1")]));
        await waitFor(() => visits.domains().length === 3);
        expect([...visits.domains()].sort()).toEqual(["127.0.0.1", "alpha.test", "localhost"]);
      } finally {
        await isolated.close();
      }
    });
  });

  describe("reading when pages or the context are gone", () => {
    it("reads an origin no frame shows any more exactly as the site left it, without a request to it", async () => {
      const context = await fresh();
      await applyProfileState(context, [
        {
          domain: "localhost",
          cookies: [cookie({ name: "s", domain: "localhost" })],
          localStorage: [{ origin: site.url("localhost", ""), items: [["k", "loaded"]] }],
        },
      ]);
      const visits = watchVisits(context);
      // Written, then the tab closed at once.
      const page = await open(context, site.url("localhost"));
      await page.evaluate(() => {
        localStorage.setItem("k", "changed");
        localStorage.setItem("new", "1");
      });
      await page.close();
      // A login's last step: the site's own script stores a token and leaves for another site.
      const tab = await context.newPage();
      await Promise.all([
        tab.waitForNavigation({ waitUntil: "load" }),
        tab.goto(site.url("www.alpha.test", `/store-and-go?to=${encodeURIComponent(site.url("127.0.0.1"))}`)),
      ]);
      await waitFor(() => tab.url().startsWith(site.url("127.0.0.1", "")));
      const before = site.cookieHeader("localhost", "/");
      const state = await readProfileState(context, visits.origins());
      expect(byName(state, "localhost").get("s")?.value).toBe("v");
      expect(sorted(storageOf(state, site.url("localhost", "")))).toEqual([
        ["k", "changed"],
        ["new", "1"],
      ]);
      expect(storageOf(state, site.url("www.alpha.test", ""))).toEqual([["token", "fresh"]]);
      // Read through a hidden page whose requests were answered in the browser: the site saw none.
      expect(site.cookieHeader("localhost", "/")).toBe(before);
      expect(site.cookieHeader("www.alpha.test", "/")).toBeUndefined();
      expect((await context.pages()).length).toBe(1);
    });

    it("keeps an origin's items as loaded when the context never opened it", async () => {
      const context = await fresh();
      const loaded: DomainState[] = [
        { domain: "beta.test", cookies: [], localStorage: [{ origin: site.url("beta.test", ""), items: [["k", "v"]] }] },
      ];
      const applied = await applyProfileState(context, loaded);
      await open(context, site.url("localhost"));
      const now = await readProfileState(context, []);
      expect(storageOf(now, site.url("beta.test", ""))).toEqual([["k", "v"]]);
      expect(changedDomains(applied.domains, now)).toEqual([]);
    });

    it("rejects with ProfileStateError once the context is closed, and never hangs or throws raw while it closes", async () => {
      const context = await fresh();
      await applyProfileState(context, [
        { domain: "localhost", cookies: [cookie({ name: "s", domain: "localhost" })], localStorage: [] },
      ]);
      const page = await open(context, site.url("localhost"));
      const reading = readProfileState(context, [site.url("localhost", "")]).then(
        (state) => ({ state }),
        (error: unknown) => ({ error }),
      );
      await Promise.all([page.close().catch(() => {}), context.close()]);
      const outcome = await reading;
      if ("error" in outcome) expect(outcome.error).toBeInstanceOf(ProfileStateError);
      else expect(byName(outcome.state, "localhost").get("s")?.value).toBe("v");
      const after = await readProfileState(context, []).catch((e: unknown) => e);
      expect(after).toBeInstanceOf(ProfileStateError);
      expect((after as Error).message).toMatch(/closed/);
      await expect(applyProfileState(context, [])).rejects.toBeInstanceOf(ProfileStateError);
    });
  });

  describe("cookies going in", () => {
    it("holds a request only until its own site's cookies are in, ahead of the rest", async () => {
      // 50 sites × 60 cookies (3,000: all a context keeps): long enough to fill that the first
      // navigation certainly starts before the last site's turn.
      const big = bigProfile(site.port, 60);
      const context = await fresh();
      const tab = await context.newPage();
      const applied = await applyProfileState(context, big);
      let allInAt = Number.POSITIVE_INFINITY;
      void applied.cookiesIn.then(() => {
        allInAt = performance.now();
      });
      await tab.goto(site.url("www.site49.test"));
      expect(cookieNames(site.cookieHeader("www.site49.test", "/page"))).toHaveLength(60);
      expect(site.requestedAt("www.site49.test", "/page")).toBeLessThan(allInAt);
      expect(await applied.cookiesIn).toEqual({ refusedCookies: 0 });
      const now = await readProfileState(context, []);
      expect(now.reduce((n, d) => n + d.cookies.length, 0)).toBe(3000);
    });

    it("counts the cookies Chromium refuses and sets the rest", async () => {
      const context = await fresh();
      const applied = await applyProfileState(context, [
        {
          domain: "localhost",
          cookies: [
            cookie({ name: "ok1" }),
            // CHIPS requires Secure: Chromium refuses it.
            cookie({ name: "bad", partitionKey: { topLevelSite: "http://localhost", hasCrossSiteAncestor: false } }),
            cookie({ name: "ok2" }),
            cookie({ name: "old", expires: 1_000_000 }),
          ],
          localStorage: [],
        },
      ]);
      expect(applied.skipped.expiredCookies).toBe(1);
      expect(await applied.cookiesIn).toEqual({ refusedCookies: 1 });
      const now = await readProfileState(context, []);
      expect([...byName(now, "localhost").keys()].sort()).toEqual(["ok1", "ok2"]);
    });
  });

  describe("a big profile", () => {
    it("loads at most 3,000 cookies (Chromium would evict beyond), the rest counted", async () => {
      const context = await fresh();
      const applied = await applyProfileState(context, bigProfile(site.port, 80));
      expect(applied.cookies).toBe(3000);
      expect(applied.skipped.cookiesOverCap).toBe(1000);
      await applied.cookiesIn;
      const now = await readProfileState(context, []);
      expect(now.reduce((n, d) => n + d.cookies.length, 0)).toBe(3000);
    });

    it("loads 50 domains, 2,000 cookies and 50 origins of localStorage, and reads them back equal", async () => {
      const big = bigProfile(site.port);
      const context = await fresh();
      const applied = await applyProfileState(context, big);
      expect(applied.cookies).toBe(2000);
      expect(applied.origins).toBe(50);
      expect(applied.skipped).toEqual({ expiredCookies: 0, cookiesOverCap: 0, storageItemsOverCap: 0 });
      expect(changedDomains(big, applied.domains)).toEqual([]);
      // Some of its sites are opened: their storage is written before their first script, and read back from them.
      const visits = watchVisits(context);
      for (const i of [0, 17, 49]) {
        const page = await open(context, site.url(`www.site${i}.test`));
        expect(await seen(page)).toEqual(sorted(big[i]?.localStorage[0]?.items ?? []));
        expect(cookieNames(site.cookieHeader(`www.site${i}.test`, "/page"))).toHaveLength(40);
      }
      const now = await readProfileState(context, visits.origins());
      expect(now.reduce((n, d) => n + d.cookies.length, 0)).toBe(2000);
      expect(changedDomains(big, now)).toEqual([]);
    });
  });
});

function cookie(over: Partial<ProfileCookie>): ProfileCookie {
  return { name: "c", value: "v", domain: "localhost", path: "/", expires: -1, httpOnly: false, secure: false, ...over };
}

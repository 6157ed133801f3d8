import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import { BrowserUnavailableError, type RunBrowserPool, type RunSession } from "../../containers/browser/run-session.ts";
import { html, type Origin, startOrigin } from "../helpers/origin.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";

const hasChrome = chromeAvailable("run-browser tests");

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("run browser pool without Chromium", () => {
  it("rejects open() with BrowserUnavailableError naming CHROME_PATH", async () => {
    const pool = createRunBrowserPool({ executablePath: "/nonexistent/chromium", allowPrivateHosts: [] });
    const err = await pool.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserUnavailableError);
    expect((err as Error).message).toContain("CHROME_PATH");
    expect(pool.inspect()).toMatchObject({ launches: 0, active: 0 });
    await pool.close();
  });
});

describe.skipIf(!hasChrome)("run browser pool", () => {
  let site: Origin;
  let forbidden: Origin;
  let pool: RunBrowserPool;
  const sessions: RunSession[] = [];
  const open = async (p = pool) => {
    const s = await p.open();
    sessions.push(s);
    return s;
  };

  beforeAll(async () => {
    forbidden = await startOrigin({
      "/secret": html("<p>internal admin page</p>"),
      "/pixel": html("x"),
    });
    site = await startOrigin({
      "/": html("<h1>home</h1>"),
      "/login": html("<h1>signed in</h1>", { "set-cookie": "who=alice; Path=/" }),
      "/probe": html(`<h1>probe</h1><img src="${forbidden.url}/pixel">
<script>window.fetchResult = fetch("${forbidden.url}/secret").then(() => "loaded", (e) => "failed: " + e.message);</script>`),
      "/links": html(
        `<a id="ok" target="_blank" href="/">ok</a> <a id="bad" target="_blank" href="${forbidden.url}/secret">bad</a>`,
      ),
    });
    pool = createRunBrowserPool({
      executablePath: CHROME,
      allowPrivateHosts: [{ host: "127.0.0.1", port: site.port }],
    });
  });

  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await pool?.close();
    await site?.close();
    await forbidden?.close();
  });

  it("gives each session its own incognito context", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    await a.activePage().goto(`${site.url}/login`);
    await b.activePage().goto(`${site.url}/`);
    expect(await a.activePage().evaluate(() => document.cookie)).toBe("who=alice");
    expect(await b.activePage().evaluate(() => document.cookie)).toBe("");
    expect(a.context).not.toBe(b.context);
    await Promise.all([a.close(), b.close()]);
    await a.close(); // twice is fine
    expect(pool.inspect().active).toBe(0);
  });

  it("polices subresources, file://, chrome:// and metadata addresses", async () => {
    const s = await open();
    const page = s.activePage();
    await page.goto(`${site.url}/probe`);
    expect(await page.$eval("h1", (h) => h.textContent)).toBe("probe");
    expect(await page.evaluate("window.fetchResult")).toMatch(/^failed/);
    await until(() => s.blocked().length >= 2, "both forbidden requests to be recorded");
    expect(s.blocked().map((b) => b.url)).toEqual(expect.arrayContaining([`${forbidden.url}/secret`, `${forbidden.url}/pixel`]));
    expect(forbidden.hits.size).toBe(0);

    await expect(page.goto("file:///etc/passwd")).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await expect(page.goto("chrome://version")).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await expect(page.goto("http://169.254.169.254/latest/meta-data/")).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    await until(() => s.blocked().some((b) => b.url.startsWith("http://169.254.169.254")), "the metadata request");
    const urls = s.blocked().map((b) => b.url);
    expect(urls).toEqual(expect.arrayContaining(["file:///etc/passwd", "chrome://version"]));
    expect(page.url()).not.toMatch(/^chrome:|^file:/);
    // A navigation that bypasses page.goto (Frame.goto): the document is left at once.
    await page
      .mainFrame()
      .goto("chrome://version")
      .catch(() => null);
    await until(() => page.url() === "about:blank", "the WebUI page to be left");
    expect(s.blocked().filter((b) => b.url.startsWith("chrome://version")).length).toBe(2);
    await s.close();
  });

  it("tracks tabs opened by the page, polices them and switches between them", async () => {
    const s = await open();
    const first = s.activePage();
    await first.goto(`${site.url}/links`);
    await first.click("#ok");
    await until(() => s.pages().length === 2, "the new tab");
    const tab = s.activePage();
    expect(tab).not.toBe(first);
    await until(async () => (await tab.evaluate(() => document.readyState).catch(() => "")) === "complete", "the tab to load");
    expect(await tab.$eval("h1", (h) => h.textContent)).toBe("home");

    expect(await s.switchTo(0)).toBe(first);
    expect(s.activePage()).toBe(first);
    await first.click("#bad");
    await until(() => s.pages().length === 3, "the popup");
    await until(() => s.blocked().some((b) => b.url === `${forbidden.url}/secret`), "the popup's request to be refused");
    expect(forbidden.hits.size).toBe(0);
    expect(s.activePage()).toBe(s.pages()[2]);

    await s.activePage().close();
    await until(() => s.pages().length === 2, "the popup to close");
    expect(s.activePage()).toBe(tab);
    await expect(s.switchTo(5)).rejects.toThrow(RangeError);
    await s.close();
  });

  it("marks sessions crashed when Chromium dies and relaunches it", async () => {
    const crashPool = createRunBrowserPool({ executablePath: CHROME, allowPrivateHosts: [] });
    try {
      const s = await crashPool.open();
      const { pid, launches } = crashPool.inspect();
      expect(launches).toBe(1);
      expect(pid).toBeTypeOf("number");
      process.kill(pid as number, "SIGKILL");
      await until(() => s.crashed(), "the session to be marked crashed");
      const started = Date.now();
      await s.close();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(crashPool.inspect().active).toBe(0);

      const again = await crashPool.open();
      expect(crashPool.inspect().launches).toBe(2);
      expect(crashPool.inspect().pid).not.toBe(pid);
      await again.activePage().goto("data:text/html,<h1>alive</h1>");
      expect(await again.activePage().$eval("h1", (h) => h.textContent)).toBe("alive");
      expect(again.crashed()).toBe(false);
      await again.close();
    } finally {
      await crashPool.close();
    }
    await expect(crashPool.open()).rejects.toThrow(BrowserUnavailableError);
  });

  it("queues sessions beyond maxConcurrency and honours the waiter's signal", async () => {
    const one = createRunBrowserPool({ executablePath: CHROME, maxConcurrency: 1, allowPrivateHosts: [] });
    try {
      const a = await one.open();
      let bOpened = false;
      const b = one.open().then((s) => {
        bOpened = true;
        return s;
      });
      const controller = new AbortController();
      const c = one.open({ signal: controller.signal });
      await until(() => one.inspect().queued === 2, "two waiters");
      controller.abort(new Error("gave up"));
      await expect(c).rejects.toThrow("gave up");
      expect(one.inspect().queued).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(bOpened).toBe(false);
      await a.close();
      const bs = await b;
      expect(one.inspect()).toMatchObject({ active: 1, queued: 0, launches: 1 });
      await bs.close();
      expect(one.inspect().active).toBe(0);
    } finally {
      await one.close();
    }
  });
});

import type { BrowserContext } from "puppeteer-core";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { toCookieParam } from "../../containers/browser/profile-data.ts";
import { applyProfileState, readProfileState, watchVisits } from "../../containers/browser/profile-state.ts";
import { CHROME } from "../helpers/test-session.ts";
import { bigProfile, launchProfileBrowser, startProfileSite } from "../profiles-browser/site.ts";

const pct = (s: number[], p: number) => [...s].sort((a, b) => a - b)[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;

/**
 * The size-and-speed figure of issue [4 of 6]: loading a Browser Context Profile of 50 registrable
 * domains, 2,000 cookies and 50 origins of localStorage (10 items each) into a fresh context of one
 * Chromium (target: ≤ 50 ms), and reading it back. Beside it, in the same iterations: the anchor,
 * an empty context created with no state (and its first tab), and the first page load in an empty
 * context against one started right after loading (what the loader and the wait for the site's
 * cookies cost it; the rest of the cookies go in meanwhile, their end is timed too). Reading is
 * measured as a save meets it: with the visited site's tab still open (read from the frame), and
 * after the tab left the site (read through a hidden page). Also beside it: what putting every
 * cookie in before the first navigation would take (one Storage.setCookies), the design not taken.
 */
export async function profilesBench(): Promise<void> {
  if (!isExecutable(CHROME)) {
    process.stdout.write(`no Chromium at ${CHROME}; set CHROME_PATH\n`);
    return;
  }
  const n = Number(process.env.BENCH_N ?? 20);
  const warmup = 3;
  const [browser, site] = await Promise.all([launchProfileBrowser(), startProfileSite()]);
  const profile = bigProfile(site.port);
  const cookies = profile.reduce((s, d) => s + d.cookies.length, 0);
  const origins = profile.reduce((s, d) => s + d.localStorage.length, 0);
  const t = {
    emptyContext: [] as number[],
    emptyFirstPage: [] as number[],
    upFront: [] as number[],
    load: [] as number[],
    loadedFirstPage: [] as number[],
    allIn: [] as number[],
    readOpen: [] as number[],
    readLeft: [] as number[],
  };
  const contexts: BrowserContext[] = [];
  const allParams = profile.flatMap((d) => d.cookies.map(toCookieParam));
  const browserSession = await browser.target().createCDPSession();
  try {
    for (let i = 0; i < n + warmup; i++) {
      const keep = i >= warmup;
      const site0 = site.url(`www.site${i % 50}.test`);

      // The anchor: an empty context with its first tab, and a first page load in it.
      let t0 = performance.now();
      const empty = await browser.createBrowserContext();
      contexts.push(empty);
      const emptyTab = await empty.newPage();
      let t1 = performance.now();
      await emptyTab.goto(site0);
      const t2 = performance.now();
      if (keep) {
        t.emptyContext.push(t1 - t0);
        t.emptyFirstPage.push(t2 - t1);
      }

      // What loading every cookie up front would cost: one Storage.setCookies of all of them.
      const eager = await browser.createBrowserContext();
      contexts.push(eager);
      t0 = performance.now();
      await browserSession.send("Storage.setCookies", { cookies: allParams, browserContextId: eager.id });
      if (keep) t.upFront.push(performance.now() - t0);

      // Ours: the same, and the profile loaded into it before the first navigation (as a run does).
      const context = await browser.createBrowserContext();
      contexts.push(context);
      const tab = await context.newPage();
      t0 = performance.now();
      const applied = await applyProfileState(context, profile);
      t1 = performance.now();
      if (applied.cookies !== cookies || applied.origins !== origins) throw new Error("the profile did not load whole");
      let allIn = 0;
      const cookiesIn = applied.cookiesIn.then(() => {
        allIn = performance.now();
      });
      const visits = watchVisits(context);
      // The first navigation right away: its requests wait for their site's cookies if need be.
      const l0 = performance.now();
      await tab.goto(site0);
      const l1 = performance.now();
      await cookiesIn;
      const o0 = performance.now();
      await readProfileState(context, visits.origins());
      const o1 = performance.now();
      await tab.goto(site.url("localhost"));
      const g0 = performance.now();
      await readProfileState(context, visits.origins());
      const g1 = performance.now();
      if (keep) {
        t.load.push(t1 - t0);
        t.allIn.push(allIn - t0);
        t.loadedFirstPage.push(l1 - l0);
        t.readOpen.push(o1 - o0);
        t.readLeft.push(g1 - g0);
      }
      visits.stop();
      await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => {})));
    }
  } finally {
    await Promise.all(contexts.map((c) => c.close().catch(() => {})));
    await browser.close();
    await site.close();
  }
  const row = (name: string, s: number[]) =>
    `  ${name.padEnd(58)} p50 ${pct(s, 0.5).toFixed(1).padStart(7)} ms   p95 ${pct(s, 0.95).toFixed(1).padStart(7)} ms   (n=${s.length})\n`;
  process.stdout.write(
    `Profile: ${profile.length} registrable domains, ${cookies} cookies, ${origins} origins × 10 localStorage items; one Chromium, a fresh context per iteration:\n`,
  );
  process.stdout.write(row("applyProfileState into a fresh context (target ≤ 50)", t.load));
  process.stdout.write(row("  every cookie in (background, from the same start)", t.allIn));
  process.stdout.write(row("first page load right after, in the loaded context", t.loadedFirstPage));
  process.stdout.write(row("readProfileState, the visited site's tab open", t.readOpen));
  process.stdout.write(row("readProfileState, the tab left the site (hidden-page read)", t.readLeft));
  process.stdout.write("Anchor, same iterations:\n");
  process.stdout.write(row("empty context created with no state (+ first tab)", t.emptyContext));
  process.stdout.write(row("first page load in the empty context", t.emptyFirstPage));
  process.stdout.write(row("all 2,000 cookies in one Storage.setCookies (up front)", t.upFront));
}

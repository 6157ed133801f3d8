import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { executeAction } from "../../../containers/agent/actions.ts";
import { readState } from "../../../containers/agent/capture-step.ts";
import { renderPageState } from "../../../containers/agent/page-state/index.ts";
import { DOM_QUIET_MS, LONG_REQUEST_MS, SETTLE_MAX_MS, settleWatch } from "../../../containers/agent/settle.ts";
import { chromeAvailable } from "../../helpers/test-session.ts";
import { waitFor } from "../../helpers/wait.ts";
import { settleSuite } from "./suite.ts";

/**
 * The settle after an action, on real Chromium and a loopback site: what it waits for (a delayed
 * XHR's results, a navigation and the request before it, a single-page-app view) and what it does
 * not (a long-poll, a status poll, a DOM that keeps ticking, a click that does nothing).
 */

describe.skipIf(!chromeAvailable("settle tests"))("settle after an action", () => {
  const t = settleSuite();
  const open = (path: string) => t.open(path);
  /** Clicks `selector` with a watch started before, the way the actions do; returns how the settle ended. */
  const clickAndSettle = async (page: Page, selector: string) => {
    const watch = await settleWatch(page);
    await page.click(selector);
    return watch.settled();
  };
  /** Clicks the element of the current page state named `name` through the agent's executor. */
  const clickNamed = async (name: string) => {
    const state = await readState(t.session.activePage(), false);
    const el = state.elements.find((e) => e.name === name);
    if (!el) throw new Error(`no element "${name}" in\n${renderPageState(state)}`);
    const res = await executeAction(t.session, state, { name: "click", index: el.index });
    return { res, after: renderPageState(await readState(t.session.activePage(), false)) };
  };

  it("waits for an XHR that fills the results 200 ms after the click", async () => {
    await open("/xhr");
    const { res, after } = await clickNamed("Load results");
    expect(res).toMatchObject({ ok: true });
    expect(res.message).toMatch(/The page changed/);
    expect(after).toContain("Result A");
    expect(after).toContain("Result B");
  });

  it("waits for a navigation the click starts (a slow document, a POST form, a navigating drop-down, a fetch then location.href)", async () => {
    await open("/nav");
    const link = await clickNamed("Slow document");
    expect(link.res.message).toMatch(/navigated to .*\/slow-doc\?ms=400/);
    expect(link.after).toContain("Arrived after 400 ms");
    await open("/nav");
    // A form submission is planned as a task of its own; its request may come after the click returned.
    const posted = await clickNamed("Send the form");
    expect(posted.res.message).toMatch(/navigated to .*\/slow-doc\?ms=200/);
    expect(posted.after).toContain("Arrived after 200 ms");
    await open("/nav");
    // A drop-down whose change navigates: the choice is verified before the page goes.
    const jump = await readState(t.session.activePage(), false);
    const box = jump.elements.find((e) => e.name === "Jump to");
    const chosen = await executeAction(t.session, jump, { name: "select_option", index: box?.index ?? 0, option: "Go" });
    expect(chosen).toMatchObject({ ok: true });
    expect(chosen.message).toMatch(/Selected "Go" .*navigated to .*\/slow-doc\?ms=150/);
    await open("/nav");
    const chained = await clickNamed("Check, then go");
    expect(chained.res.message).toMatch(/navigated to .*\/slow-doc\?ms=100/);
    expect(chained.after).toContain("Arrived after 100 ms");
  });

  it("waits for a tab the click opens to load its document", async () => {
    const page = await open("/nav");
    const settled = await clickAndSettle(page, "a[target=_blank]");
    expect(await settled.popup?.evaluate(() => document.body.textContent)).toContain("Arrived after 300 ms");
    await t.session.switchTo(0);
    const { res, after } = await clickNamed("In a new tab");
    expect(res.message).toMatch(/A new tab opened and is now active: .*\/slow-doc\?ms=300/);
    expect(after).toContain("Arrived after 300 ms");
  });

  it("waits for a single-page app's fetch and pushState view", async () => {
    await open("/spa");
    const { res, after } = await clickNamed("Page two");
    expect(res.message).toMatch(/navigated to .*\/spa\/page2/);
    expect(after).toContain("Result A, Result B");
    expect(after).not.toContain("Home view");
  });

  it("settles at once after a click that does nothing", async () => {
    const page = await open("/idle");
    const settled = await clickAndSettle(page, "#nothing");
    expect(settled.reason).toBe("settled");
    // DOM_QUIET_MS and a few page round trips, far from the cap.
    expect(settled.waitedMs).toBeGreaterThanOrEqual(DOM_QUIET_MS);
    expect(settled.waitedMs).toBeLessThan(SETTLE_MAX_MS / 5);
    const { res } = await clickNamed("Does nothing");
    expect(res.message).toMatch(/Nothing visible changed/);
  });

  it("is not held by a long-poll or a status poll the page keeps running, yet waits for the click's own request", async () => {
    const page = await open("/background");
    // The page's own traffic between actions: the long-poll open and the status poll repeating.
    await waitFor(() => (t.site.counts.get("status") ?? 0) >= 3 && (t.site.counts.get("updates") ?? 0) >= 1);
    await waitFor(() => page.evaluate(() => performance.now() > 1200));
    const note = await clickAndSettle(page, "#note");
    expect(note.reason).toBe("settled");
    // Neither waited to the cap nor to the long-request limit.
    expect(note.waitedMs).toBeLessThan(LONG_REQUEST_MS);
    const { res, after } = await clickNamed("Load results");
    expect(res.message).toMatch(/The page changed/);
    expect(after).toContain("Result A");
  });

  it("has the top document watched from its start, a navigation outside any action included, and no frame", async () => {
    const page = await open("/idle");
    await page.goto(`${t.site.url}/framed`, { waitUntil: "load" });
    const watched = () => Object.getOwnPropertyDescriptor(window, "__ospreySettle")?.enumerable === false;
    expect(await page.evaluate(watched)).toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.evaluate(watched)).toBe(false);
    // The page's own view of its globals is unchanged.
    expect(await page.evaluate(() => Object.keys(window).filter((k) => k.startsWith("__osprey")))).toEqual([]);
  });

  it("is held by a DOM that never stops changing only for a bounded time", async () => {
    const page = await open("/ticker");
    const settled = await clickAndSettle(page, "#nothing");
    expect(settled.waitedMs).toBeLessThan(SETTLE_MAX_MS / 2);
  });

  it("stops at the cap while a navigation is still loading, and never throws on a closed page", async () => {
    const page = await open("/idle");
    const watch = await settleWatch(page);
    await page.evaluate((url) => location.assign(url), `${t.site.url}/slow-doc?ms=3000`);
    const capped = await watch.settled(600);
    expect(capped.reason).toBe("cap");
    expect(capped.waitedMs).toBeLessThan(2_000);
    const other = await t.session.context.newPage();
    const gone = await settleWatch(other);
    await other.close();
    await expect(gone.settled()).resolves.toMatchObject({ reason: "settled" });
  });
});

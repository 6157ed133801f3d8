import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type HTTPRequest, type Page, type Target } from "puppeteer-core";
import { CHROMIUM_ARGS, isExecutable } from "../../containers/browser/chromium-process.ts";
import type { RunSession } from "../../containers/browser/run-session.ts";

/**
 * A minimal RunSession for agent tests over one headless Chromium: each session is an incognito
 * context, tabs are tracked (a tab the page opens becomes active), and requests to `blockHosts`
 * are refused and listed by `blocked()` like the real address policy would.
 */

export const CHROME = process.env.CHROME_PATH || "/usr/bin/chromium";

/** Whether CHROME can run; when it cannot, says on stderr that `suite` is skipped and why. */
export function chromeAvailable(suite: string): boolean {
  if (isExecutable(CHROME)) return true;
  // biome-ignore lint/suspicious/noConsole: say why a whole suite is skipped
  console.warn(`${suite} skipped: no Chromium executable at ${CHROME} (set CHROME_PATH or install chromium)`);
  return false;
}

export interface TestBrowser {
  browser: Browser;
  open(opts?: { blockHosts?: string[] }): Promise<RunSession>;
  close(): Promise<void>;
}

export async function launchTestBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), "osprey-agent-test-"));
  const browser = await puppeteer.launch({
    executablePath: CHROME,
    headless: true,
    userDataDir: profile,
    defaultViewport: { width: 1280, height: 900 },
    // The production flags (chromium-process.ts), so agent tests see the browser runs get.
    args: CHROMIUM_ARGS,
  });
  return {
    browser,
    open: (opts) => openSession(browser, opts?.blockHosts ?? []),
    close: async () => {
      await browser.close().catch(() => {});
      await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

async function openSession(browser: Browser, blockHosts: string[]): Promise<RunSession> {
  const context = await browser.createBrowserContext();
  const tabs: Page[] = [];
  let active: Page | null = null;
  const refused: { url: string; reason: string }[] = [];
  let dead = false;
  const onDisconnect = () => {
    dead = true;
  };
  browser.on("disconnected", onDisconnect);

  const track = async (page: Page) => {
    if (tabs.includes(page)) return;
    tabs.push(page);
    active = page;
    page.on("close", () => {
      tabs.splice(tabs.indexOf(page), 1);
      if (active === page) active = tabs.at(-1) ?? null;
    });
    if (blockHosts.length) {
      await page.setRequestInterception(true);
      page.on("request", (req: HTTPRequest) => {
        const host = new URL(req.url()).host;
        if (blockHosts.includes(host)) {
          refused.push({ url: req.url(), reason: "the address is not allowed" });
          void req.abort("blockedbyclient").catch(() => {});
        } else void req.continue().catch(() => {});
      });
    }
  };
  const onTarget = async (t: Target) => {
    if (t.type() !== "page") return;
    const page = await t.page().catch(() => null);
    if (page) await track(page);
  };
  context.on("targetcreated", onTarget);
  await track(await context.newPage());

  return {
    context,
    browser,
    activePage: () => {
      if (!active) throw new Error("no open tab");
      return active;
    },
    pages: () => [...tabs],
    switchTo: async (i) => {
      const page = tabs[i];
      if (!page) throw new Error(`no tab ${i}`);
      active = page;
      await page.bringToFront();
      return page;
    },
    blocked: () => [...refused],
    egress: () => ({ rxBytes: 0, txBytes: 0, connections: 0, refused: 0 }),
    crashed: () => dead,
    close: async () => {
      context.off("targetcreated", onTarget);
      browser.off("disconnected", onDisconnect);
      await context.close().catch(() => {});
    },
  };
}

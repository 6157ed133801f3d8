import type { BrowserContext, Page, Target } from "puppeteer-core";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { Resolver } from "../../functions/net/address-policy.ts";
import { createBrowserHolder } from "./browser-holder.ts";
import { type ChromiumProcess, isExecutable, launchChromium } from "./chromium-process.ts";
import { type EgressProxy, PROXY_BYPASS_LIST, startEgressProxy } from "./egress-proxy.ts";
import { createLimiter } from "./limiter.ts";
import { type BrowserGuard, bounded, createUrlJudge, frameIdOf, guardBrowser, guardNavigation } from "./request-guard.ts";
import { BrowserUnavailableError, type RunBrowserPool, type RunSession, type RunSessionOptions } from "./run-session.ts";

/**
 * The browsers agent runs drive: one pooled Chromium (launched on the first open, again after a
 * crash or an idle close), an incognito context per session, at most `maxConcurrency` sessions at
 * once, and the fetch address policy on every request the browser sends (see request-guard.ts).
 */

export interface RunBrowserPoolOptions {
  executablePath: string;
  /** Sessions at once; the rest wait. Default 2. */
  maxConcurrency?: number;
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
  /** Close the browser after this long with no session (a later open relaunches it). Default 60 s. */
  idleCloseMs?: number;
  logger?: Logger;
}

const LAUNCH_TIMEOUT_MS = 30_000;
const BLOCKED_CAP = 50;
const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

interface Live {
  proc: ChromiumProcess;
  guard: BrowserGuard;
  sessions: Set<Session>;
}

interface Session extends RunSession {
  record(url: string, reason: string): void;
  markCrashed(): void;
  owns(frameId: string): boolean;
}

function createSession(
  live: Live,
  context: BrowserContext,
  first: Page,
  proxy: EgressProxy,
  onClosed: () => void,
  viewport = DEFAULT_VIEWPORT,
): Session {
  const tabs: Page[] = [];
  const blocked: { url: string; reason: string }[] = [];
  let active = first;
  let crashed = false;
  let closing: Promise<void> | null = null;

  const record = (url: string, reason: string) => {
    blocked.push({ url, reason });
    if (blocked.length > BLOCKED_CAP) blocked.splice(0, blocked.length - BLOCKED_CAP);
  };
  const track = (page: Page) => {
    if (tabs.includes(page)) return;
    tabs.push(page);
    active = page;
    guardNavigation(page, record);
    page.once("close", () => {
      const i = tabs.indexOf(page);
      if (i >= 0) tabs.splice(i, 1);
      if (active === page && tabs.length > 0) active = tabs[tabs.length - 1] as Page;
    });
  };
  track(first);
  // Popups and new tabs: their requests are already policed browser-wide; here they join the tab list.
  const onTarget = (target: Target) => {
    if (target.type() !== "page") return;
    void target.page().then(
      (page) => {
        if (!page || closing || page.isClosed()) return;
        track(page);
        void bounded(page.setViewport(viewport), undefined);
      },
      () => {},
    );
  };
  context.on("targetcreated", onTarget);

  const session: Session = {
    context,
    browser: live.proc.browser,
    activePage: () => active,
    pages: () => [...tabs],
    async switchTo(index) {
      const page = tabs[index];
      if (!page) throw new RangeError(`no tab ${index} (${tabs.length} open)`);
      active = page;
      await bounded(page.bringToFront(), undefined);
      return page;
    },
    blocked: () => blocked.map((b) => ({ ...b })),
    egress: () => proxy.counters(),
    crashed: () => crashed,
    close() {
      closing ??= (async () => {
        context.off("targetcreated", onTarget);
        try {
          if (!crashed && live.proc.browser.connected) {
            await Promise.all(tabs.map((p) => bounded(p.close(), undefined)));
            await bounded(context.close(), undefined);
          }
        } finally {
          await proxy.close();
          live.sessions.delete(session);
          onClosed();
        }
      })();
      return closing;
    },
    record,
    markCrashed: () => {
      crashed = true;
    },
    owns: (frameId) => tabs.some((p) => !p.isClosed() && p.frames().some((f) => frameIdOf(f) === frameId)),
  };
  return session;
}

export function createRunBrowserPool(opts: RunBrowserPoolOptions): RunBrowserPool {
  const limiter = createLimiter(opts.maxConcurrency ?? 2);
  const idleCloseMs = opts.idleCloseMs ?? 60_000;
  const judge = createUrlJudge({ allowPrivateHosts: opts.allowPrivateHosts, resolver: opts.resolver });
  const log = opts.logger;
  const egressOptions = { allowPrivateHosts: opts.allowPrivateHosts, resolver: opts.resolver, logger: log };
  let closingPool: Promise<void> | null = null;

  /** Attributes a refused request to the session whose frame sent it (a popup's first request included). */
  const attribute = async (live: Live, frameId: string, url: string, reason: string) => {
    let owner = [...live.sessions].find((s) => s.owns(frameId));
    if (!owner) {
      const contextId = await live.guard.contextOf(frameId);
      owner = [...live.sessions].find((s) => contextId !== null && s.context.id === contextId);
    }
    owner?.record(url, reason);
  };

  /** Chromium with the address policy on all its traffic (the holder adds the lifecycle). */
  const start = async (): Promise<Live> => {
    let proc: ChromiumProcess;
    try {
      proc = await launchChromium(opts.executablePath, LAUNCH_TIMEOUT_MS, egressOptions);
    } catch (err) {
      const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
      throw new BrowserUnavailableError(`Chromium at ${opts.executablePath} could not be started (check CHROME_PATH): ${why}`);
    }
    // Requests refused before `live` exists (none: no context is open yet) are only logged.
    let live: Live | null = null;
    let guard: BrowserGuard;
    try {
      guard = await guardBrowser(proc.browser, judge, (frameId, url, reason) => {
        log?.info("browser request refused by the address policy", { url, reason });
        if (live) void attribute(live, frameId, url, reason);
      });
    } catch (err) {
      await proc.terminate({ force: true });
      throw new BrowserUnavailableError(`Chromium could not be set up: ${err instanceof Error ? err.message : String(err)}`);
    }
    live = { proc, guard, sessions: new Set<Session>() };
    return live;
  };

  const holder = createBrowserHolder<Live>({
    start,
    closedError: () => new BrowserUnavailableError("the browser pool was closed while Chromium started"),
    idleCloseMs,
    isIdle: () => limiter.active === 0 && limiter.queued === 0,
    mayCloseIdle: (live) => live.sessions.size === 0,
    onDisconnected: ({ proc, sessions }) => {
      if (sessions.size > 0) log?.warn("the run browser disconnected", { sessions: sessions.size, pid: proc.pid });
      for (const s of sessions) s.markCrashed();
    },
  });
  const { scheduleIdle, cancelIdle } = holder;

  async function newSession(live: Live, release: () => void, o: RunSessionOptions): Promise<Session> {
    // A proxy of its own for the session's context: its bytes are the run's, and what it refuses
    // (a name that rebinds to a private address after the guard's check, a WebSocket, a worker's
    // request) joins the run's blocked list. The browser-wide proxy of the launch covers the rest.
    let session: Session | null = null;
    const proxy = await startEgressProxy({
      ...egressOptions,
      onRefused: (destination, reason) => session?.record(destination, reason),
    });
    let context: BrowserContext;
    try {
      context = await live.proc.browser.createBrowserContext({
        downloadBehavior: { policy: "deny" },
        proxyServer: proxy.url,
        proxyBypassList: [PROXY_BYPASS_LIST],
      });
    } catch (err) {
      await proxy.close();
      throw err;
    }
    try {
      const page = await context.newPage();
      const viewport = o.viewport ?? DEFAULT_VIEWPORT;
      await page.setViewport(viewport);
      session = createSession(
        live,
        context,
        page,
        proxy,
        () => {
          release();
          scheduleIdle();
        },
        viewport,
      );
      live.sessions.add(session);
      return session;
    } catch (err) {
      await bounded(context.close(), undefined);
      await proxy.close();
      throw err;
    }
  }

  return {
    async open(o = {}) {
      if (holder.isClosed()) throw new BrowserUnavailableError("the browser pool is closed");
      if (!isExecutable(opts.executablePath)) {
        throw new BrowserUnavailableError(
          `no Chromium executable at ${opts.executablePath} (install chromium or set CHROME_PATH)`,
        );
      }
      const release = await limiter.acquire(o.signal);
      cancelIdle();
      let session: Session | null = null;
      try {
        const live = await holder.ensure();
        o.signal?.throwIfAborted();
        session = await newSession(live, release, o);
        if (holder.isClosed()) throw new BrowserUnavailableError("the browser pool is closed");
        return session;
      } catch (err) {
        if (session) await session.close();
        else {
          release();
          scheduleIdle();
        }
        throw err;
      }
    },
    inspect: () => ({
      launches: holder.launches(),
      active: limiter.active,
      queued: limiter.queued,
      pid: holder.current()?.proc.pid ?? null,
    }),
    close() {
      closingPool ??= (async () => {
        const ended = holder.close(async (live) => {
          await Promise.all([...live.sessions].map((s) => s.close()));
        });
        limiter.rejectAll(new BrowserUnavailableError("the browser pool was closed"));
        await ended;
      })();
      return closingPool;
    },
  };
}

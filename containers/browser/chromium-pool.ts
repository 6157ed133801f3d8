import type { Browser } from "puppeteer-core";
import { type Renderer, type RenderRequest, type RenderResult, renderFailure } from "../../functions/fetch/renderer.ts";
import { MAX_BODY_BYTES } from "../../functions/fetch/url-outcome.ts";
import { createBrowserHolder } from "./browser-holder.ts";
import { type ChromiumProcess, isExecutable, launchChromium } from "./chromium-process.ts";
import type { EgressProxyOptions } from "./egress-proxy.ts";
import { createLimiter, raceAbort } from "./limiter.ts";
import { DEFAULT_SETTLE_MAX_MS, type PreparedPage, preparePage, renderInContext } from "./render-page.ts";

/**
 * The local Chromium pool behind the `Renderer` port: one browser, launched on the first render and
 * again after a crash, a watchdog kill or an idle close; an incognito context per render (one is
 * made ready after each render, so the next skips a renderer-process start); at most
 * `maxConcurrency` renders at once (the rest wait in a queue that honours each caller's signal and
 * deadline); a watchdog that kills a browser that stops answering; and `close()` as the one way
 * everything ends (every browser this pool started has exited and its profile is gone when it resolves).
 */

export interface ChromiumRendererOptions {
  executablePath: string;
  /**
   * The address policy of the egress proxy all the browser's traffic goes through (a render's
   * subresources, scripts' fetches, WebSockets and workers included): the same
   * OSPREY_ALLOW_PRIVATE_HOSTS exemptions as the fetch fast path, and its resolver.
   */
  egress: Pick<EgressProxyOptions, "allowPrivateHosts" | "resolver" | "logger">;
  /** Renders at once; the rest queue. Default 2. */
  maxConcurrency?: number;
  /** Close the browser after this long with nothing to do (a later render relaunches it). Default 60 s. */
  idleCloseMs?: number;
  /** After DOMContentLoaded, the longest wait for the network to go quiet. Default 4 s. */
  settleMaxMs?: number;
  /** The most characters of a page's serialised DOM a render returns, cut in the page. Default MAX_BODY_BYTES. */
  maxHtmlChars?: number;
  /** How often the watchdog asks the browser for its version. Default 10 s. */
  watchdogIntervalMs?: number;
  /** How long the browser has to answer the watchdog before it is killed. Default 5 s. */
  watchdogTimeoutMs?: number;
}

export interface ChromiumPoolState {
  browser: Browser | null;
  userDataDir: string | null;
  pid: number | null;
  /** Browsers launched so far (a relaunch after a crash or idle close counts). */
  launches: number;
  active: number;
  queued: number;
}

export interface ChromiumRenderer extends Renderer {
  /** A snapshot for tests and the status banner. */
  inspect(): ChromiumPoolState;
  /** Resolves when no render is running or queued (and the spare page, if any, is made). */
  whenIdle(): Promise<void>;
}

const LAUNCH_TIMEOUT_MS = 30_000;

interface Live {
  proc: ChromiumProcess;
  /** A context and page made ready after the last render, for the next one. */
  spare: Promise<PreparedPage> | null;
}

const isHttpUrl = (url: string): boolean => {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
};

export function createChromiumRenderer(opts: ChromiumRendererOptions): ChromiumRenderer {
  const available = isExecutable(opts.executablePath);
  const limiter = createLimiter(opts.maxConcurrency ?? 2);
  const idleCloseMs = opts.idleCloseMs ?? 60_000;
  const watchdogTimeoutMs = opts.watchdogTimeoutMs ?? 5_000;
  const settleMaxMs = opts.settleMaxMs ?? DEFAULT_SETTLE_MAX_MS;
  const maxHtmlChars = opts.maxHtmlChars ?? MAX_BODY_BYTES;
  let closing: Promise<void> | null = null;
  let probing = false;
  const holder = createBrowserHolder<Live>({
    start: async () => ({ proc: await launchChromium(opts.executablePath, LAUNCH_TIMEOUT_MS, opts.egress), spare: null }),
    closedError: () => new Error("the renderer was closed while Chromium started"),
    idleCloseMs,
    isIdle: () => limiter.active === 0 && limiter.queued === 0,
  });
  const { retire, scheduleIdle, cancelIdle } = holder;

  const watchdog = setInterval(() => {
    const live = holder.current();
    if (!live || probing) return;
    probing = true;
    const timer = setTimeout(() => void retire(live, true), watchdogTimeoutMs);
    timer.unref();
    live.proc
      .ping()
      .then(
        () => clearTimeout(timer),
        () => {},
      )
      .finally(() => {
        probing = false;
      });
  }, opts.watchdogIntervalMs ?? 10_000);
  watchdog.unref();

  /** The spare page if there is one (a failed spare is replaced), else a new one. */
  const takePage = (live: Live): Promise<PreparedPage> => {
    const fresh = () => preparePage(live.proc.browser, live.proc.userAgent);
    const spare = live.spare;
    live.spare = null;
    return spare ? spare.catch(fresh) : fresh();
  };
  /** Made after a render, while its slot is still held: the next render skips a renderer start. */
  const topUpSpare = async (live: Live): Promise<void> => {
    if (holder.isClosed() || holder.current() !== live || live.spare || !live.proc.browser.connected) return;
    const spare = preparePage(live.proc.browser, live.proc.userAgent);
    live.spare = spare;
    await spare.catch(() => {});
  };

  const idleWaiters: (() => void)[] = [];
  const notifyIdle = () => {
    if (holder.isClosed() || (limiter.active === 0 && limiter.queued === 0)) {
      for (const resolve of idleWaiters.splice(0)) resolve();
    }
  };

  async function renderWithSlot(
    req: RenderRequest,
    signal: AbortSignal,
    deadlineAt: number,
    onBrowser: (live: Live) => void,
  ): Promise<RenderResult> {
    let live: Live;
    try {
      live = await holder.ensure();
      onBrowser(live);
    } catch (err) {
      const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
      return renderFailure("render_unavailable", `Chromium could not be started: ${reason}`);
    }
    try {
      return await renderInContext(req, { prepared: takePage(live), signal, deadlineAt, settleMaxMs, maxHtmlChars });
    } catch (err) {
      if (!live.proc.browser.connected) {
        void retire(live);
        return renderFailure("render_unavailable", "the browser stopped during the render (it will be restarted)");
      }
      const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
      return renderFailure("render_unavailable", `the render failed: ${reason}`);
    }
  }

  async function render(req: RenderRequest): Promise<RenderResult> {
    if (!available) return renderFailure("render_unavailable", `no Chromium executable at ${opts.executablePath}`);
    if (holder.isClosed()) return renderFailure("render_unavailable", "the renderer is closed");
    if (!isHttpUrl(req.url)) return renderFailure("invalid_url", "only http and https URLs can be rendered");
    const timeoutMs = Number.isFinite(req.timeoutMs) ? Math.max(1, Math.floor(req.timeoutMs)) : 1;
    const deadlineAt = Date.now() + timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const onAbort = (): RenderResult =>
      req.signal?.aborted
        ? renderFailure("timeout", "the render was cancelled by the caller")
        : renderFailure("timeout", `the page was not rendered within ${timeoutMs} ms`);

    // Refused up front: no browser is started for a URL that could not be loaded anyway.
    const allowed = await raceAbort(
      req.isAllowed(req.url).catch(() => false),
      signal,
      () => null,
    );
    if (allowed === null) return onAbort();
    if (!allowed) return renderFailure("invalid_url", `the address policy refuses ${req.url}`);

    let release: () => void;
    try {
      release = await limiter.acquire(signal);
    } catch {
      return holder.isClosed() ? renderFailure("render_unavailable", "the renderer was closed") : onAbort();
    }
    cancelIdle();
    // The slot is held until the render has really finished (its context closed) and the next
    // spare page is made, even when the caller has already been answered: concurrency stays bounded.
    let live: Live | null = null;
    const work = renderWithSlot(req, signal, deadlineAt, (l) => {
      live = l;
    });
    void work
      .then(() => (live ? topUpSpare(live) : undefined))
      .finally(() => {
        release();
        scheduleIdle();
        notifyIdle();
      });
    return raceAbort(work, signal, onAbort);
  }

  return {
    available,
    description: available ? `chromium at ${opts.executablePath}` : `none: no Chromium executable at ${opts.executablePath}`,
    render,
    inspect: () => ({
      browser: holder.current()?.proc.browser ?? null,
      userDataDir: holder.current()?.proc.userDataDir ?? null,
      pid: holder.current()?.proc.pid ?? null,
      launches: holder.launches(),
      active: limiter.active,
      queued: limiter.queued,
    }),
    whenIdle: () =>
      holder.isClosed() || (limiter.active === 0 && limiter.queued === 0)
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    close() {
      closing ??= (async () => {
        const ended = holder.close(); // marks the holder closed before anything below runs
        clearInterval(watchdog);
        limiter.rejectAll(new Error("the renderer was closed"));
        notifyIdle();
        await ended;
      })();
      return closing;
    },
  };
}

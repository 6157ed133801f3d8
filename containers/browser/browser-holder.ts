import type { ChromiumProcess } from "./chromium-process.ts";

/**
 * The one-browser lifecycle both Chromium pools share (chromium-pool.ts for fetch renders,
 * run-browser.ts for agent runs): a browser launched on demand (once, however many callers wait
 * for it), killed and forgotten when it disconnects, closed after `idleCloseMs` with nothing to do,
 * and a `close()` that resolves only when every browser it started has exited.
 */

export interface HeldBrowser {
  proc: ChromiumProcess;
}

export interface BrowserHolderOptions<L extends HeldBrowser> {
  /** Starts a browser with whatever the pool keeps beside it; its errors reach the caller of ensure(). */
  start(): Promise<L>;
  /** The error ensure() throws when the holder was closed while `start` ran (that browser is ended). */
  closedError(): Error;
  /** Close the browser after this long with nothing to do (a later ensure() relaunches it). */
  idleCloseMs: number;
  /** Whether the pool has nothing to do: the idle close is armed only then. */
  isIdle(): boolean;
  /** A last check when the idle time is up; default: close. */
  mayCloseIdle?(live: L): boolean;
  /** Called when a browser disconnects (crash, kill), before it is retired. */
  onDisconnected?(live: L): void;
}

export interface BrowserHolder<L extends HeldBrowser> {
  /** The browser in use, if any. */
  current(): L | null;
  /** Browsers launched so far (a relaunch after a crash or an idle close counts). */
  launches(): number;
  isClosed(): boolean;
  /** The connected browser, launching one when there is none. */
  ensure(): Promise<L>;
  /** Ends one browser (`force`: its process group is killed at once) and forgets it if it is current. */
  retire(live: L, force?: boolean): Promise<void>;
  /** Arms the idle close of the current browser when the pool is idle (re-arms it if armed). */
  scheduleIdle(): void;
  cancelIdle(): void;
  /**
   * Marks the holder closed at once (no more launches, no idle close), then waits for a launch in
   * progress, runs `beforeEnd` on the current browser, ends it and waits for every browser retired
   * so far to exit.
   */
  close(beforeEnd?: (live: L) => Promise<void>): Promise<void>;
}

export function createBrowserHolder<L extends HeldBrowser>(opts: BrowserHolderOptions<L>): BrowserHolder<L> {
  let current: L | null = null;
  let launching: Promise<L> | null = null;
  let launches = 0;
  let closed = false;
  let idleTimer: NodeJS.Timeout | null = null;
  const retiring = new Set<Promise<void>>();

  const retire = (live: L, force = false): Promise<void> => {
    if (current === live) current = null;
    const ending = live.proc.terminate({ force });
    retiring.add(ending);
    void ending.finally(() => retiring.delete(ending));
    return ending;
  };

  const launch = async (): Promise<L> => {
    const live = await opts.start();
    if (closed) {
      await live.proc.terminate({ force: true });
      throw opts.closedError();
    }
    launches++;
    live.proc.browser.once("disconnected", () => {
      opts.onDisconnected?.(live);
      void retire(live, true);
    });
    current = live;
    if (!live.proc.browser.connected) void retire(live, true);
    return live;
  };

  const cancelIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
  };

  return {
    current: () => current,
    launches: () => launches,
    isClosed: () => closed,
    ensure() {
      if (current?.proc.browser.connected) return Promise.resolve(current);
      if (current) void retire(current, true);
      launching ??= launch().finally(() => {
        launching = null;
      });
      return launching;
    },
    retire,
    scheduleIdle() {
      cancelIdle();
      if (closed || !current || !opts.isIdle()) return;
      const live = current;
      idleTimer = setTimeout(() => {
        if (opts.mayCloseIdle?.(live) ?? true) void retire(live);
      }, opts.idleCloseMs);
      idleTimer.unref();
    },
    cancelIdle,
    async close(beforeEnd) {
      closed = true;
      cancelIdle();
      await launching?.catch(() => {});
      const live = current;
      if (live) {
        await beforeEnd?.(live);
        void retire(live);
      }
      // Browsers retired earlier (crash, watchdog, idle) may still be exiting: wait for them too.
      await Promise.allSettled([...retiring]);
    },
  };
}

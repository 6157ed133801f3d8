import type { Logger } from "../../functions/lib/logger.ts";
import type { ChromiumProcess } from "../browser/chromium-process.ts";

/**
 * Chromium processes launched ahead of demand, so creating a session takes a process that is
 * already up (a launch costs 300–1000 ms; taking one costs nothing). Each process serves one
 * session and is then terminated, never returned: nothing of one tenant (cookies, storage, cache,
 * permissions, a service worker) can survive into the next. Refills run one launch at a time in
 * the background so a burst of creations does not starve the machine's cores.
 */

export interface WarmPoolOptions {
  /** Processes kept ready (0: every session launches its own, cold). */
  size: number;
  launch: () => Promise<ChromiumProcess>;
  logger?: Logger;
}

export interface WarmPool {
  /** Begins filling (nothing is launched before: a server that fails to start launches nothing). */
  start(): void;
  /** A ready process (warm), or a fresh launch when none is ready (cold). */
  take(): Promise<{ proc: ChromiumProcess; warm: boolean }>;
  stats(): { ready: number; launching: boolean; launches: number; coldTakes: number; warmTakes: number };
  /** Resolves once `size` processes are ready (start-up, benches). */
  filled(): Promise<void>;
  close(): Promise<void>;
}

const RETRY_AFTER_FAILURE_MS = 5_000;

export function createWarmPool(opts: WarmPoolOptions): WarmPool {
  const ready: ChromiumProcess[] = [];
  let launching: Promise<void> | null = null;
  let closed = false;
  let launches = 0;
  let coldTakes = 0;
  let warmTakes = 0;
  let waiters: (() => void)[] = [];
  /** Sessions waiting for the launch already under way (an empty pool), served first come first. */
  const takers: ((proc: ChromiumProcess | null) => void)[] = [];
  let retryTimer: NodeJS.Timeout | null = null;

  const wakeWaiters = () => {
    if (ready.length < opts.size && !closed) return;
    const w = waiters;
    waiters = [];
    for (const fn of w) fn();
  };

  const launchOne = async (): Promise<ChromiumProcess> => {
    launches++;
    return opts.launch();
  };

  const refill = (): void => {
    if (closed || launching || ready.length >= opts.size) {
      wakeWaiters();
      return;
    }
    launching = (async () => {
      try {
        while (!closed && (ready.length < opts.size || takers.length > 0)) {
          const proc = await launchOne();
          if (closed) {
            await proc.terminate({ force: true });
            return;
          }
          // A session waiting on an empty pool gets this one at once (it is half launched
          // already: starting a second Chromium beside it would slow both on a small machine).
          const taker = takers.shift();
          if (taker) {
            taker(proc);
            continue;
          }
          // A ready process that dies (OOM, a crash) is dropped, and replaced.
          proc.browser.once("disconnected", () => {
            const i = ready.indexOf(proc);
            if (i < 0) return;
            ready.splice(i, 1);
            void proc.terminate({ force: true });
            refill();
          });
          ready.push(proc);
        }
      } catch (err) {
        // Waiting sessions launch their own (and see its error themselves).
        for (const taker of takers.splice(0)) taker(null);
        opts.logger?.warn("warm browser launch failed; retrying", { error: err });
        retryTimer = setTimeout(() => {
          retryTimer = null;
          refill();
        }, RETRY_AFTER_FAILURE_MS);
        retryTimer.unref();
      } finally {
        launching = null;
        wakeWaiters();
      }
    })();
  };

  return {
    start: refill,
    async take() {
      while (ready.length > 0) {
        const proc = ready.shift() as ChromiumProcess;
        if (!proc.browser.connected) {
          void proc.terminate({ force: true });
          continue;
        }
        warmTakes++;
        refill();
        return { proc, warm: true };
      }
      coldTakes++;
      if (launching && !closed) {
        const proc = await new Promise<ChromiumProcess | null>((resolve) => takers.push(resolve));
        if (proc) return { proc, warm: false };
      }
      if (closed) throw new Error("the warm pool is closed");
      refill();
      return { proc: await launchOne(), warm: false };
    },
    stats: () => ({ ready: ready.length, launching: launching !== null, launches, coldTakes, warmTakes }),
    filled: () =>
      ready.length >= opts.size || closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiters.push(resolve);
            refill();
          }),
    async close() {
      closed = true;
      for (const taker of takers.splice(0)) taker(null);
      if (retryTimer) clearTimeout(retryTimer);
      await launching?.catch(() => {});
      const all = ready.splice(0);
      await Promise.all(all.map((p) => p.terminate({ force: true })));
      wakeWaiters();
    },
  };
}

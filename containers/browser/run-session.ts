import type { Browser, BrowserContext, Page } from "puppeteer-core";
import type { EgressCounters } from "./egress-proxy.ts";

/**
 * The browser a run drives: its own incognito context in a pooled Chromium (tenants never share a
 * context) behind its own egress proxy, every request checked against the fetch address policy
 * (the proxy resolves and connects to the address it judged; a page cannot reach loopback,
 * private ranges, metadata addresses, file:// or chrome://; OSPREY_ALLOW_PRIVATE_HOSTS exempts
 * listed hosts), tabs tracked so the agent can switch between them.
 */
export interface RunSession {
  readonly context: BrowserContext;
  readonly browser: Browser;
  /** The tab the agent acts on (a tab the page opens becomes active; closing it falls back). */
  activePage(): Page;
  /** Open tabs, oldest first. */
  pages(): Page[];
  /** Makes `index` (into `pages()`) the active tab and brings it to front. */
  switchTo(index: number): Promise<Page>;
  /** Requests refused by the address policy so far (url + reason), newest last, at most 50. */
  blocked(): { url: string; reason: string }[];
  /** Bytes and connections through the session's egress proxy so far. */
  egress(): EgressCounters;
  /** True once the browser process died or disconnected while the session was open. */
  crashed(): boolean;
  /** Closes every page and the context; never throws; safe to call twice. */
  close(): Promise<void>;
}

export interface RunSessionOptions {
  viewport?: { width: number; height: number };
  /** Aborts the wait for a free slot. */
  signal?: AbortSignal;
}

export interface RunBrowserPool {
  /** Waits for a free slot (at most `maxConcurrency` sessions at once), launching Chromium if needed. */
  open(opts?: RunSessionOptions): Promise<RunSession>;
  inspect(): { launches: number; active: number; queued: number; pid: number | null };
  close(): Promise<void>;
}

/** Thrown by `open()` when Chromium is missing or cannot start. */
export class BrowserUnavailableError extends Error {
  override name = "BrowserUnavailableError";
}

/// <reference lib="dom" />
import type { HTTPRequest, Page } from "puppeteer-core";
import { frameIdOf } from "../browser/request-guard.ts";

/**
 * What a tab keeps for settle.ts from its first watch for as long as it is open: the requests it
 * has open, the endpoints it calls on its own between actions (its background traffic), when it
 * last asked for a new window or to navigate in place, and on every document from its start a
 * MutationObserver that keeps the time of the last mutation (KEY). settle.ts decides from these,
 * action by action, when the page has settled.
 */

/** An open request older than this when an action begins is background traffic (its endpoint included). */
const BACKGROUND_OPEN_MS = 1_000;
/** Requests to one endpoint made between actions, after which that endpoint counts as background (polling, beacons). */
const BACKGROUND_REPEATS = 2;

/** `origin + path` of a request: what repeats from one poll to the next while queries change. */
export const endpointOf = (url: string): string => {
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
};

/**
 * Per tab, for as long as it is open: the requests it has open and the endpoints it calls on its
 * own (between actions), which are its background traffic.
 */
export class Tracker {
  /** Watches in progress (the page's requests now may be the action's). */
  active = 0;
  readonly open = new Map<HTTPRequest, number>();
  private readonly spontaneous = new Map<string, number>();
  readonly background = new Set<string>();
  /** When the page last asked for a new window (a target=_blank link, window.open, a form into a new tab). */
  windowOpenAt = 0;
  /** When the main frame last asked to navigate in place (a link, a form submission, a script), before any request. */
  navRequestedAt = 0;
  /** Resolves once the page's own DevTools session reports window opens (Page.windowOpen) and new documents get the observer. */
  readonly ready: Promise<void>;

  constructor(page: Page) {
    // Page.windowOpen comes at once; the new tab's target can take hundreds of ms on a busy machine.
    this.ready = page
      .createCDPSession()
      .then(async (cdp) => {
        cdp.on("Page.windowOpen", () => {
          this.windowOpenAt = Date.now();
        });
        // A form submission is planned as a task of its own: its request can come after the click returned.
        cdp.on("Page.frameRequestedNavigation", (e) => {
          if (e.frameId === frameIdOf(page.mainFrame()) && e.disposition === "currentTab") this.navRequestedAt = Date.now();
        });
        await Promise.all([cdp.send("Page.enable"), page.evaluateOnNewDocument(observeMutations, KEY)]);
      })
      .catch(() => {});
    page.on("request", (r) => {
      this.open.set(r, Date.now());
      if (this.active > 0 || r.isNavigationRequest()) return;
      const key = endpointOf(r.url());
      const n = (this.spontaneous.get(key) ?? 0) + 1;
      if (this.spontaneous.size > 500) this.spontaneous.clear();
      this.spontaneous.set(key, n);
      if (n >= BACKGROUND_REPEATS) this.addBackground(key);
    });
    const done = (r: HTTPRequest) => void this.open.delete(r);
    page.on("requestfinished", done);
    page.on("requestfailed", done);
  }

  addBackground(key: string): void {
    if (this.background.size > 200) this.background.clear();
    this.background.add(key);
  }

  /** At the start of an action: endpoints of long requests already open are background (long-polls). */
  noteOpen(now: number): void {
    for (const [r, at] of this.open) if (now - at >= BACKGROUND_OPEN_MS) this.addBackground(endpointOf(r.url()));
  }
}

const trackers = new WeakMap<Page, Tracker>();

export function trackerOf(page: Page): Tracker {
  let t = trackers.get(page);
  if (!t) {
    t = new Tracker(page);
    trackers.set(page, t);
  }
  return t;
}

export const KEY = "__ospreySettle";

/** Runs in the page: (re)starts the MutationObserver that keeps the time of the last mutation. */
export function observeMutations(key: string): void {
  // Only the top document's DOM is watched (the init script also runs in every frame).
  if (window.top !== window) return;
  const w = window as unknown as Record<string, { last: number; obs: MutationObserver } | undefined>;
  w[key]?.obs.disconnect();
  const state = {
    last: performance.now(),
    obs: new MutationObserver(() => {
      state.last = performance.now();
    }),
  };
  state.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(window, key, { value: state, configurable: true, enumerable: false });
}

/** Runs in the page: ms since the last mutation, or -1 when this document has no observer (it is new). */
export function sinceMutation(key: string): number {
  const s = (window as unknown as Record<string, { last: number } | undefined>)[key];
  return s ? performance.now() - s.last : -1;
}

export function stopObserving(key: string): void {
  (window as unknown as Record<string, { obs: MutationObserver } | undefined>)[key]?.obs.disconnect();
}

/// <reference lib="dom" />
import type { HTTPRequest, HTTPResponse, Page, Target } from "puppeteer-core";
import { endpointOf, KEY, observeMutations, sinceMutation, stopObserving, trackerOf } from "./tab-watch.ts";

/**
 * Waiting for a page to settle after an action, on signals rather than fixed waits. A watch starts
 * before the action and, once the action is done, `settled()` resolves when all of these hold (or
 * at `SETTLE_MAX_MS` at the latest):
 *  - navigation: a main-frame navigation that started has committed and reached DOMContentLoaded
 *    (one that never starts is noticed by the DOM-quiet window below, which is also the window in
 *    which a navigation the action caused must have begun);
 *  - requests that matter are done: documents, XHR/fetch, scripts and stylesheets started after
 *    the action began, not analytics or beacons (by type and address), not media, websockets or
 *    event streams, not the page's own background traffic (an endpoint it polls between steps, or
 *    whose long request was already open when the action began), and none longer than
 *    `LONG_REQUEST_MS` (a long-poll or a stream is not waited for to its end);
 *  - the DOM has been quiet (no mutation in the main document, seen by a MutationObserver) for
 *    `DOM_QUIET_MS`; a page that keeps changing (a ticking clock, a carousel) holds the step at
 *    most `DOM_BUSY_MAX_MS` once everything else is done;
 *  - a tab the action opened has loaded its first document as far (its own DOMContentLoaded).
 * A page that reaches all of them at once (a click that changes nothing) settles in about
 * `DOM_QUIET_MS`. Never throws.
 *
 * The watch wakes on the page's events (a request, its end, a commit, DOMContentLoaded) rather than
 * on a poll, and every document of the tab has the mutation observer from its start (an init
 * script), so the quiet window of a new document counts from its last real mutation (its parsing
 * included) and needs no round trip to set up once it has loaded.
 */

/** Longest wait after an action (navigations and requests that matter included). */
export const SETTLE_MAX_MS = 5_000;
/** The DOM counts as quiet after this long without a mutation; also the window in which an action's navigation or request must start. */
export const DOM_QUIET_MS = 50;
/** Once navigation and requests are done, a DOM that keeps changing holds the step at most this long. */
const DOM_BUSY_MAX_MS = 1_000;
/** A request that matters but is still open after this long is taken for a long-poll or a stream and no longer waited for. */
export const LONG_REQUEST_MS = 2_000;
/** Requests to one endpoint within one settle after which it counts as polled (background), like BACKGROUND_REPEATS between actions. */
const POLLED_WITHIN_WATCH = 3;
const POLL_MS = 25;
/** Shortest nap between two looks at the DOM (a DOM that keeps changing is not polled in a busy loop). */
const MIN_NAP_MS = 2;
/** How often a committed document that fired no DOMContentLoaded event is asked for its readyState. */
const READY_ASK_MS = 250;
/** A navigation whose response ended this long ago without committing a document (204, download) is over. */
const NAV_NO_COMMIT_MS = 500;

/** Types of request whose end a step waits for; images, fonts, media, websockets, pings, manifests are not. */
const MATTERS = new Set(["document", "xhr", "fetch", "script", "stylesheet"]);
/** Addresses of traffic that never changes what a page shows (analytics, ads, beacons, chat widgets, keep-alives). */
const IGNORED_URL =
  /analytics|tracking|telemetry|beacon|\/collect\b|metrics|heartbeat|keep-?alive|doubleclick|adsystem|adservice|adserver|googletagmanager|hotjar|intercom|zendesk|livechat|onesignal|sentry|newrelic|nr-data|segment\.(io|com)|mixpanel|amplitude|clarity\.ms/i;
/** Response types that stream (not waited for past their headers). */
const STREAMING = /event-stream|video\/|audio\/|multipart\/x-mixed-replace|application\/x-ndjson/i;

export interface SettleResult {
  /** Milliseconds from `settled()` being called to the page being settled. */
  waitedMs: number;
  /** What ended the wait: every signal quiet, or the cap. */
  reason: "settled" | "cap";
  /** A tab the action opened (already loaded as far as its DOMContentLoaded), if any. */
  popup?: Page;
}

/** Observes a page from before an action to its settling after it. */
export interface SettleWatch {
  /** Call once the action is done; resolves when the page settled (or at the cap). Never throws. */
  settled(maxMs?: number): Promise<SettleResult>;
}

/** How a step waits for the page after an action: `settleWatch` (signals) in production; the benchmark passes its anchor. */
export type Settler = (page: Page) => Promise<SettleWatch>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Bounds a page call: a page mid-navigation or hung never holds the step past the deadline. */
const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  Promise.race([p.catch(() => fallback), sleep(Math.max(0, ms)).then(() => fallback)]);

/** Starts watching `page` before an action. */
export async function settleWatch(page: Page): Promise<SettleWatch> {
  const tracker = trackerOf(page);
  await within(tracker.ready, 1_000, undefined);
  const began = Date.now();
  tracker.noteOpen(began);
  tracker.active += 1;
  /** Requests that matter, open, with when they started. */
  const pending = new Map<HTTPRequest, number>();
  let nav: "none" | "started" | "committed" | "loaded" = "none";
  let navRequest: HTTPRequest | null = null;
  /** When the navigation's response ended without a commit (a 204, a download): given up on shortly after. */
  let navEndedAt: number | null = null;
  /** The last navigation request of the page (Page.frameRequestedNavigation) this watch took up. */
  let navSeenAt = 0;
  let popupTarget: Target | null = null;
  /** Last time a request that matters started or ended, or the navigation moved on. */
  let activity = began;
  /** DOMContentLoaded of the main frame fired since the navigation being waited for started. */
  let contentLoaded = false;
  /** Bumped at each commit: a readyState answer about an earlier document is ignored. */
  let commits = 0;
  /** Wakes `settled()` from its nap when something it waits on happens. */
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const matters = (r: HTTPRequest): boolean => {
    const url = r.url();
    if (!MATTERS.has(r.resourceType()) || url.startsWith("data:") || url.startsWith("blob:")) return false;
    if (IGNORED_URL.test(url) || tracker.background.has(endpointOf(url))) return false;
    return r.headers().purpose !== "prefetch";
  };
  /** Requests per endpoint since the action began: one called again and again meanwhile is polled, not the action's. */
  const calls = new Map<string, number>();
  const onRequest = (r: HTTPRequest) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) {
      if (nav === "none" || nav === "loaded") nav = "started";
      navRequest = r;
      navEndedAt = null;
      contentLoaded = false;
      navSeenAt = Math.max(navSeenAt, tracker.navRequestedAt);
      activity = Date.now();
      poke();
    }
    if (!matters(r)) return;
    const key = endpointOf(r.url());
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    if (n >= POLLED_WITHIN_WATCH && !r.isNavigationRequest()) {
      tracker.addBackground(key);
      for (const p of pending.keys()) if (endpointOf(p.url()) === key) pending.delete(p);
      return;
    }
    pending.set(r, Date.now());
    activity = Date.now();
  };
  const onDone = (r: HTTPRequest) => {
    if (pending.delete(r)) {
      activity = Date.now();
      poke();
    }
    if (r !== navRequest || nav !== "started") return;
    if (r.failure()) nav = "none";
    else navEndedAt = Date.now();
    poke();
  };
  const onResponse = (res: HTTPResponse) => {
    if (STREAMING.test(res.headers()["content-type"] ?? "")) pending.delete(res.request());
  };
  const onNavigated = (f: unknown) => {
    if (f !== page.mainFrame()) return;
    if (nav === "started") {
      nav = "committed";
      commits += 1;
    }
    activity = Date.now();
    poke();
  };
  const onContentLoaded = () => {
    contentLoaded = true;
    poke();
  };
  // Any tab of the run's context that appears meanwhile (a target=_blank link is noopener: no opener to match on).
  const onTarget = (t: Target) => {
    if (t.type() === "page" && t !== page.target()) popupTarget ??= t;
  };
  const context = page.browserContext();
  page.on("request", onRequest);
  page.on("requestfinished", onDone);
  page.on("requestfailed", onDone);
  page.on("response", onResponse);
  page.on("framenavigated", onNavigated);
  page.on("domcontentloaded", onContentLoaded);
  context.on("targetcreated", onTarget);
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    tracker.active = Math.max(0, tracker.active - 1);
    page.off("request", onRequest);
    page.off("requestfinished", onDone);
    page.off("requestfailed", onDone);
    page.off("response", onResponse);
    page.off("framenavigated", onNavigated);
    page.off("domcontentloaded", onContentLoaded);
    context.off("targetcreated", onTarget);
    poke();
    clearTimeout(safety);
    void page.evaluate(stopObserving, KEY).catch(() => {});
  };
  // A watch whose action threw before settled() was called lets go of the page on its own.
  const safety = setTimeout(dispose, 2 * SETTLE_MAX_MS + 30_000);
  safety.unref();
  await within(page.evaluate(observeMutations, KEY), 1_000, undefined);

  return {
    async settled(maxMs = SETTLE_MAX_MS): Promise<SettleResult> {
      const start = Date.now();
      const deadline = start + maxMs;
      let domQuietSince: number | null = null;
      let busySince: number | null = null;
      let reason: SettleResult["reason"] = "cap";
      let popup: Page | undefined;
      /** When the committed document's readyState was last asked for. */
      let askedAt = 0;
      try {
        while (Date.now() < deadline) {
          const now = Date.now();
          if (page.isClosed()) {
            reason = "settled";
            break;
          }
          // Long-polls and streams stop counting once they have been open for LONG_REQUEST_MS.
          for (const [r, at] of pending) if (now - at >= LONG_REQUEST_MS) pending.delete(r);
          if (nav === "none" && tracker.navRequestedAt >= began && tracker.navRequestedAt > navSeenAt) {
            // Asked for, not yet sent: waited for like one that started, unless nothing comes of it.
            navSeenAt = tracker.navRequestedAt;
            nav = "started";
            navEndedAt = navRequest === null ? now : null;
            contentLoaded = false;
          }
          if (nav === "started" && navEndedAt !== null && now - navEndedAt >= NAV_NO_COMMIT_MS) nav = "none";
          if (nav === "committed" && contentLoaded) {
            nav = "loaded";
            activity = now;
          }
          if (nav === "committed" && now - askedAt >= READY_ASK_MS) {
            // A same-document commit (pushState, a fragment, a page from the back-forward cache) fires
            // no DOMContentLoaded: its readyState tells. Asked aside, so that the event is not waited behind it.
            askedAt = now;
            const commit = commits;
            void within(
              page.evaluate(() => document.readyState),
              deadline - now,
              "loading",
            ).then((state) => {
              if (state === "loading" || nav !== "committed" || commit !== commits) return;
              nav = "loaded";
              activity = Date.now();
              poke();
            });
          }
          if (nav === "started" || nav === "committed") {
            await nap(Math.min(POLL_MS, deadline - now));
            continue;
          }
          const since = await within(page.evaluate(sinceMutation, KEY), deadline - now, -2);
          if (since === -1) {
            // A document without the observer (its init script did not run): watch it from here.
            await within(page.evaluate(observeMutations, KEY), deadline - Date.now(), undefined);
            activity = Date.now();
            continue;
          }
          const t = Date.now();
          // Quiet for DOM_QUIET_MS in the page, and nothing started or ended for as long here.
          const domQuiet = since >= DOM_QUIET_MS || since === -2;
          const calm = pending.size === 0 && t - activity >= DOM_QUIET_MS && t - start >= DOM_QUIET_MS;
          if (calm && !domQuiet) busySince ??= t;
          else busySince = null;
          if (calm && (domQuiet || t - (busySince ?? t) >= DOM_BUSY_MAX_MS)) {
            domQuietSince = t;
            break;
          }
          // Until the latest of the windows can close (polled while requests are open); an event wakes it sooner.
          const quietAt = Math.max(domQuiet ? 0 : t - Math.max(0, since), activity, start) + DOM_QUIET_MS;
          const wait = pending.size > 0 ? POLL_MS : Math.max(MIN_NAP_MS, quietAt - t);
          await nap(Math.min(wait, deadline - t));
        }
        if (domQuietSince !== null) reason = "settled";
        // The page asked for a new window: wait for its tab to exist.
        while (tracker.windowOpenAt >= began && !popupTarget && Date.now() < deadline) await sleep(POLL_MS);
        const opened = popupTarget as Target | null;
        if (opened) {
          popup = (await within(opened.page(), deadline - Date.now(), null)) ?? undefined;
          if (popup) await firstDocument(popup, deadline);
        }
      } finally {
        dispose();
      }
      return { waitedMs: Date.now() - start, reason, ...(popup ? { popup } : {}) };
    },
  };
}

/** A new tab: waits (until `deadline`) for its first document to leave about:blank and pass DOMContentLoaded. */
async function firstDocument(page: Page, deadline: number): Promise<void> {
  while (Date.now() < deadline && !page.isClosed()) {
    const ready = await within(
      page.evaluate(() => document.readyState !== "loading" && location.href !== "about:blank"),
      deadline - Date.now(),
      false,
    );
    if (ready) return;
    await sleep(POLL_MS);
  }
}

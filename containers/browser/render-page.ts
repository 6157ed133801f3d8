import type { Browser, BrowserContext, HTTPRequest, HTTPResponse, Page } from "puppeteer-core";
import { type RenderRequest, type RenderResult, renderFailure } from "../../functions/fetch/renderer.ts";
import { pageHtml } from "./page-html.ts";

/**
 * One render in a fresh incognito context: every request the page makes passes the caller's
 * address policy first, the page is given a short time to settle after DOMContentLoaded, and the
 * context (with its page) is closed in `finally`, whatever happened.
 */

/** Resource types a text extractor never needs: aborted without asking the network or the policy. */
const SKIPPED_TYPES = new Set(["image", "media", "font", "texttrack", "manifest", "ping", "prefetch", "cspviolationreport"]);
/** After DOMContentLoaded: wait until no request has been in flight for IDLE_MS, at most `settleMaxMs`. */
const IDLE_MS = 200;
export const DEFAULT_SETTLE_MAX_MS = 4000;
/** Time kept back from the deadline for serialising the DOM. */
const SERIALISE_RESERVE_MS = 250;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Runs before any page script in every frame. Service workers, shared workers and popups would
 * fetch outside this page's interception, and WebSocket/WebTransport/WebRTC connections are not
 * HTTP requests that request interception sees: the page gets none of them.
 */
const PAGE_GUARD = `(() => {
  const deny = (what) => function () { throw new DOMException(what + " is disabled in this renderer", "SecurityError"); };
  try {
    if (typeof ServiceWorkerContainer !== "undefined")
      Object.defineProperty(ServiceWorkerContainer.prototype, "register", {
        value: () => Promise.reject(new DOMException("service workers are disabled in this renderer", "SecurityError")),
      });
  } catch {}
  try { Object.defineProperty(globalThis, "open", { value: () => null, writable: false, configurable: false }); } catch {}
  for (const name of ["WebSocket", "WebTransport", "RTCPeerConnection", "webkitRTCPeerConnection", "SharedWorker"]) {
    try { Object.defineProperty(globalThis, name, { value: deny(name), writable: false, configurable: false }); } catch {}
  }
})();`;

interface RenderState {
  /** The first main-frame navigation the policy refused. */
  blocked: { url: string; redirect: boolean } | null;
  /** Main-frame documents received so far (a later blocked navigation is a client-side redirect). */
  documents: number;
  /** Status of the last main-frame document (not a redirect hop). */
  status: number | null;
}

const isMainDocument = (page: Page, r: HTTPRequest): boolean => r.isNavigationRequest() && r.frame() === page.mainFrame();

async function decide(page: Page, r: HTTPRequest, req: RenderRequest, state: RenderState): Promise<void> {
  if (r.isInterceptResolutionHandled()) return;
  const url = r.url();
  const main = isMainDocument(page, r);
  try {
    if (!main && SKIPPED_TYPES.has(r.resourceType())) return await r.abort("blockedbyclient");
    const scheme = url.slice(0, url.indexOf(":") + 1).toLowerCase();
    // data: and blob: never reach the network; anything but http(s)/ws(s) is refused outright.
    if (!main && (scheme === "data:" || scheme === "blob:")) return await r.continue();
    const networked = scheme === "http:" || scheme === "https:" || scheme === "ws:" || scheme === "wss:";
    const allowed = networked && (await req.isAllowed(url).catch(() => false));
    if (allowed) return await r.continue();
    if (main && !state.blocked) state.blocked = { url, redirect: r.redirectChain().length > 0 || state.documents > 0 };
    await r.abort("blockedbyclient");
  } catch {
    // The context closed while the policy was asked (deadline or caller abort): nothing to resolve.
  }
}

function onResponse(page: Page, resp: HTTPResponse, state: RenderState): void {
  if (!isMainDocument(page, resp.request()) || REDIRECT_STATUSES.has(resp.status())) return;
  state.documents++;
  state.status = resp.status();
}

function blockedFailure(blocked: NonNullable<RenderState["blocked"]>): RenderResult {
  return blocked.redirect
    ? renderFailure("invalid_redirect_url", `the page redirected to a URL the address policy refuses: ${blocked.url}`)
    : renderFailure("invalid_url", `the address policy refuses ${blocked.url}`);
}

function navigationFailure(err: unknown, state: RenderState): RenderResult {
  if (state.blocked) return blockedFailure(state.blocked);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Error && err.name === "TimeoutError") return renderFailure("timeout", "the page did not load in time");
  const code = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (code) return renderFailure("target_unreachable", `the browser could not load the page (${code})`);
  throw err; // not a page problem (browser gone, protocol error): the pool decides
}

/** A fresh incognito context with one page, guarded and intercepting, not yet navigated. */
export interface PreparedPage {
  context: BrowserContext;
  page: Page;
}

/**
 * Makes a context and page ready for one render. The pool may do this ahead of time (a spare), so
 * that a render does not wait for a renderer process to start; a prepared page is used once.
 */
export async function preparePage(browser: Browser, userAgent: string): Promise<PreparedPage> {
  const context = await browser.createBrowserContext({ downloadBehavior: { policy: "deny" } });
  try {
    const page = await context.newPage();
    // Defence in depth behind the popup blocker and the page guard: a page this render did not
    // open has no interception, so it is closed at once.
    context.on("targetcreated", (target) => {
      if (target.type() === "page")
        void target.page().then(
          (p) => (p && p !== page ? p.close() : undefined),
          () => {},
        );
    });
    await Promise.all([
      page.setBypassServiceWorker(true),
      page.setUserAgent({ userAgent }),
      page.evaluateOnNewDocument(PAGE_GUARD),
      // Until the render attaches its handler, a request would wait (never leave): about:blank makes none.
      page.setRequestInterception(true),
    ]);
    return { context, page };
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}

export interface RenderContext {
  /** The page to render in; its context is closed when the render ends. */
  prepared: Promise<PreparedPage>;
  /** Aborts on the deadline or the caller's signal; closing the context ends every pending step. */
  signal: AbortSignal;
  deadlineAt: number;
  /** Longest wait for the network to go quiet (long polls and beacons never do). */
  settleMaxMs: number;
  /** The most characters of the serialised DOM returned (page-html.ts). */
  maxHtmlChars: number;
}

export async function renderInContext(req: RenderRequest, ctx: RenderContext): Promise<RenderResult> {
  const remaining = () => Math.max(1, ctx.deadlineAt - Date.now());
  const { context, page } = await ctx.prepared;
  const closeContext = () => context.close().catch(() => {});
  ctx.signal.addEventListener("abort", closeContext, { once: true });
  try {
    if (ctx.signal.aborted) return renderFailure("timeout", "the render was abandoned before it started");
    const state: RenderState = { blocked: null, documents: 0, status: null };
    page.on("request", (r) => void decide(page, r, req, state));
    // alert/confirm/prompt would stop the page's scripts until someone answers.
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => {}));
    page.on("response", (resp) => onResponse(page, resp, state));

    let response: HTTPResponse | null;
    try {
      response = await page.goto(req.url, { waitUntil: "domcontentloaded", timeout: remaining() });
    } catch (err) {
      return navigationFailure(err, state);
    }
    if (state.blocked) return blockedFailure(state.blocked);

    const settle = Math.min(ctx.settleMaxMs, remaining() - SERIALISE_RESERVE_MS);
    if (settle > 0) await page.waitForNetworkIdle({ idleTime: IDLE_MS, concurrency: 0, timeout: settle }).catch(() => {});
    if (state.blocked) return blockedFailure(state.blocked);

    const html = await pageHtml(page, ctx.maxHtmlChars);
    return { ok: true, html, finalUrl: page.url(), status: state.status ?? response?.status() ?? null };
  } finally {
    ctx.signal.removeEventListener("abort", closeContext);
    await closeContext();
  }
}

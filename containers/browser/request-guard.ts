import type { Browser, CDPSession, GoToOptions, HTTPResponse, Page } from "puppeteer-core";
import type { AllowedHost } from "../../functions/config/config.ts";
import { checkUrl, effectivePort, type Resolver, resolvePublic } from "../../functions/net/address-policy.ts";

/**
 * The address policy for a run's browser, enforced on every request Chromium sends.
 *
 * Interception is browser-wide: one CDP session on the browser target with `Fetch.enable`. Unlike
 * page-level interception (`page.setRequestInterception`), it is on before any context or page
 * exists, so a popup's first navigation, a new tab's requests, iframes and workers are all paused
 * and judged; there is no window between a target's creation and its interception.
 *
 * What it cannot see, the egress proxy (egress-proxy.ts) covers: Chromium resolves no names itself
 * (the proxy does, and connects to the address it judged, so DNS rebinding after this check gets
 * nowhere), and WebSocket connections, which the Fetch domain does not pause, go through the proxy
 * too. This guard stays in front for what the proxy cannot tell: which frame asked, schemes that
 * never reach the network, and a refusal the agent can be told about before anything is sent.
 * - WebUI navigations (chrome://…) never reach the network stack, so interception never sees them:
 *   `guardNavigation` refuses them at `page.goto` and navigates away from any that happen anyway.
 */

/** Schemes that never reach the network (the document's own bytes). */
const INERT_SCHEMES = new Set(["data:", "blob:"]);
const NETWORK_SCHEMES = new Set(["http:", "https:", "ws:", "wss:"]);
/** Main-frame URLs that are navigated away from at once (WebUI, local files, extensions, source views). */
const FORBIDDEN_DOCUMENT =
  /^(chrome|chrome-untrusted|chrome-extension|chrome-search|devtools|file|view-source|filesystem|ftp|edge|brave):/i;
/** How long a DNS verdict is reused. */
const DNS_TTL_MS = 5000;
/** Every CDP call here is bounded: a dead browser must never hang a caller. */
export const CDP_TIMEOUT_MS = 5000;

export const schemeOf = (url: string): string => url.slice(0, url.indexOf(":") + 1).toLowerCase();

/** Resolves with `fallback` when `work` has not settled within `ms` (or rejects). */
export function bounded<T>(work: Promise<T>, fallback: T, ms = CDP_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

export interface PolicyOptions {
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
}

/** Judges URLs against the fetch address policy; null means allowed, else the reason. */
export type UrlJudge = (url: string) => Promise<string | null>;

export function createUrlJudge(opts: PolicyOptions): UrlJudge {
  const dns = new Map<string, { at: number; verdict: Promise<string | null> }>();
  const resolveVerdict = (host: string, port: number): Promise<string | null> => {
    const key = `${host}|${port}`;
    const now = Date.now();
    const hit = dns.get(key);
    if (hit && now - hit.at < DNS_TTL_MS) return hit.verdict;
    if (dns.size > 500) for (const [k, v] of dns) if (now - v.at >= DNS_TTL_MS) dns.delete(k);
    const verdict = resolvePublic(host, port, opts.allowPrivateHosts, opts.resolver).then(
      () => null,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    dns.set(key, { at: now, verdict });
    return verdict;
  };
  return async (raw) => {
    const scheme = schemeOf(raw);
    if (INERT_SCHEMES.has(scheme) || raw === "about:blank" || raw === "about:srcdoc") return null;
    if (!NETWORK_SCHEMES.has(scheme)) return `scheme "${scheme.slice(0, -1) || raw}" is not allowed`;
    // ws/wss are judged as the http(s) request their handshake is.
    const asHttp = scheme === "ws:" || scheme === "wss:" ? `http${raw.slice(2)}` : raw;
    const check = checkUrl(asHttp, opts.allowPrivateHosts);
    if (!check.ok) return check.reason;
    return resolveVerdict(check.url.hostname, effectivePort(check.url));
  };
}

interface PausedRequest {
  requestId: string;
  request: { url: string };
  frameId?: string;
}

export interface BrowserGuard {
  session: CDPSession;
  /** The browser context a main frame (frameId = its target id) belongs to, if it is a page target. */
  contextOf(frameId: string): Promise<string | null>;
}

/**
 * Starts browser-wide interception. `onBlocked` hears every refused request with the frame that
 * sent it (empty for requests no frame sent, e.g. a service worker's).
 */
export async function guardBrowser(
  browser: Browser,
  judge: UrlJudge,
  onBlocked: (frameId: string, url: string, reason: string) => void,
): Promise<BrowserGuard> {
  const session = await browser.target().createCDPSession();
  const handle = async (e: PausedRequest): Promise<void> => {
    const url = e.request.url;
    const reason = await judge(url).catch((err: unknown) => `the address policy failed: ${String(err)}`);
    try {
      if (reason === null) {
        await session.send("Fetch.continueRequest", { requestId: e.requestId });
        return;
      }
      await session.send("Fetch.failRequest", { requestId: e.requestId, errorReason: "BlockedByClient" });
    } catch {
      return; // the request or the browser went away meanwhile
    }
    onBlocked(e.frameId ?? "", url, reason);
  };
  session.on("Fetch.requestPaused", (e) => void handle(e as PausedRequest));
  await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
  return {
    session,
    contextOf: async (frameId) => {
      if (!frameId) return null;
      const info = await bounded(session.send("Target.getTargetInfo", { targetId: frameId }), null);
      return info?.targetInfo.browserContextId ?? null;
    },
  };
}

/** Puppeteer's frame id (not in its public types): the key Fetch.requestPaused reports. */
export const frameIdOf = (frame: unknown): string | undefined => (frame as { _id?: string })._id;

/**
 * Refuses agent-typed navigations to non-web schemes (chrome://, file://, …) before they start —
 * WebUI pages never pass through request interception — and leaves any such document that loads
 * anyway (about:blank replaces it).
 */
export function guardNavigation(page: Page, onBlocked: (url: string, reason: string) => void): void {
  const goto = page.goto.bind(page);
  const refusal = (url: string): string | null => {
    const scheme = schemeOf(url);
    if (scheme === "http:" || scheme === "https:" || INERT_SCHEMES.has(scheme) || url === "about:blank") return null;
    return `scheme "${scheme.slice(0, -1) || url}" is not allowed`;
  };
  page.goto = async (url: string, options?: GoToOptions): Promise<HTTPResponse | null> => {
    const reason = refusal(url.trim());
    if (reason) {
      onBlocked(url, reason);
      throw new Error(`net::ERR_BLOCKED_BY_CLIENT at ${url} (${reason})`);
    }
    return goto(url, options);
  };
  page.on("framenavigated", (frame) => {
    const url = frame.url();
    if (frame !== page.mainFrame() || !FORBIDDEN_DOCUMENT.test(url)) return;
    onBlocked(url, `scheme "${schemeOf(url).slice(0, -1)}" is not allowed`);
    void goto("about:blank").catch(() => {});
  });
}

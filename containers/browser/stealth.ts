import type { BrowserContext, CDPSession, Page, Target } from "puppeteer-core";
import type { Fingerprint } from "./fingerprint.ts";
import { stealthScriptSource } from "./stealth-script.ts";

/**
 * Stealth, one implementation for remote browser sessions in `stealth` mode and runs with
 * `browser_profile: "stealth"` (spec 4.1): the tells a headless Chromium gives away are hidden and
 * the browser claims the seeded `Fingerprint` (fingerprint.ts) consistently in headers, client
 * hints, Intl, navigator, screen, WebGL and canvas read-back. What this cannot hide (the TLS and
 * HTTP/2 fingerprint, installed fonts, audio, WebGL rendering details, service and shared workers)
 * is listed in test/render/stealth.test.ts; a site that checks those can still tell, and the run
 * then ends SITE_BLOCKED.
 */

/** Sends one CDP command on one target's session (puppeteer's CDPSession.send, or a raw client). */
export type CdpSend = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

/** Target types (Target.TargetInfo.type) that are documents; the rest are workers. */
const DOCUMENT_TARGETS = new Set(["page", "iframe"]);

/**
 * Applies the fingerprint to one target over raw CDP. `targetType` is Target.TargetInfo.type:
 * a document ("page", "iframe") gets the user agent, client hints and Accept-Language, the time
 * zone, locale, screen metrics and the in-page script (also run at once in documents already
 * loading); a worker ("worker", "shared_worker", "service_worker") gets the user agent and the
 * script's navigator part.
 *
 * Every command is sent before this function first awaits, so a caller that auto-attached with
 * `waitForDebuggerOnStart` calls it, then `Runtime.runIfWaitingForDebugger`, then awaits it: a
 * paused worker only answers once it runs.
 */
export async function applyStealthToTarget(send: CdpSend, fp: Fingerprint, targetType = "page"): Promise<void> {
  const source = stealthScriptSource({
    languages: fp.languages,
    platform: fp.platform,
    hardwareConcurrency: fp.hardwareConcurrency,
    deviceMemory: fp.deviceMemory,
    screen: fp.screen,
    window: fp.window,
    webgl: fp.webgl,
    noiseSeed: fp.noiseSeed,
  });
  const userAgent = {
    userAgent: fp.userAgent,
    // Chromium adds the q-values itself (Fingerprint.acceptLanguage is the header it then sends).
    acceptLanguage: fp.languages.join(","),
    platform: fp.platform,
    userAgentMetadata: fp.userAgentMetadata,
  };
  if (!DOCUMENT_TARGETS.has(targetType)) {
    // Dedicated workers inherit their page's override; service and shared workers need their own.
    await Promise.all([
      send("Network.setUserAgentOverride", userAgent).catch(() => {}),
      send("Runtime.evaluate", { expression: source, silent: true }),
    ]);
    return;
  }
  await Promise.all([
    // The script needs the Page domain enabled on this session.
    send("Page.enable"),
    send("Emulation.setUserAgentOverride", userAgent),
    send("Emulation.setTimezoneOverride", { timezoneId: fp.timezone }),
    send("Emulation.setLocaleOverride", { locale: fp.locale }),
    // Screen size for CSS media queries too (device-width), not only for screen.width in JS; a
    // frame's size is its parent's business.
    targetType === "page" &&
      send("Emulation.setDeviceMetricsOverride", {
        width: fp.viewport.width,
        height: fp.viewport.height,
        deviceScaleFactor: fp.screen.deviceScaleFactor,
        mobile: false,
        screenWidth: fp.screen.width,
        screenHeight: fp.screen.height,
      }),
    send("Page.addScriptToEvaluateOnNewDocument", { source, runImmediately: true }),
  ]);
}

const applied = new WeakSet<Page>();

/**
 * Stealth for a puppeteer page (runs): `applyStealthToTarget` over a CDP session of the page's
 * own, which also auto-attaches to the page's dedicated workers and out-of-process frames, paused
 * at start, so their navigator agrees with the page's before their first line runs. Applying it
 * twice to one page does nothing more (the canvas noise must not be added twice).
 */
export async function applyStealth(page: Page, fp: Fingerprint): Promise<void> {
  if (applied.has(page)) return;
  applied.add(page);
  const session = await page.createCDPSession();
  const sendOn =
    (s: CDPSession): CdpSend =>
    (method, params) =>
      s.send(method as never, params as never);
  session.on("Target.attachedToTarget", (event: { sessionId: string; targetInfo: { type: string } }) => {
    const child = session.connection()?.session(event.sessionId);
    if (!child) return;
    const done = applyStealthToTarget(sendOn(child), fp, event.targetInfo.type);
    // Resume it whatever happened: a worker left paused would hang the page that waits on it.
    void child.send("Runtime.runIfWaitingForDebugger").catch(() => {});
    void done.catch(() => {});
  });
  // Sent first: once the page's script is in, workers are already caught (one session answers in order).
  await Promise.all([
    session.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    applyStealthToTarget(sendOn(session), fp),
  ]);
}

/**
 * Stealth for a run's browser context: the page open now and every tab the run opens later (a
 * popup's first document may start before the script is in; `runImmediately` then patches it late).
 * It watches the context until the context closes (with the run's session).
 */
export async function applyStealthToContext(context: BrowserContext, page: Page, fp: Fingerprint): Promise<void> {
  const onTarget = (target: Target) => {
    if (target.type() !== "page") return;
    void target
      .page()
      .then((p) => (p && !p.isClosed() ? applyStealth(p, fp) : undefined))
      .catch(() => {});
  };
  context.on("targetcreated", onTarget);
  await applyStealth(page, fp);
}

import type { ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdir, mkdtemp, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";
import { type EgressProxy, type EgressProxyOptions, PROXY_BYPASS_LIST, startEgressProxy } from "./egress-proxy.ts";

/**
 * One Chromium process with its own temporary profile, and the one way to end it: `terminate()`
 * (polite close, then SIGKILL to the whole process group, then the profile directory is removed).
 * Used by the pool for each (re)launch.
 */

/** Flags that work in this environment; the headless and profile flags are added by puppeteer. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  // Keep cross-site iframes in the page's process, so that their requests are intercepted with the page's.
  "--disable-site-isolation-trials",
  // DnsOverHttps: Chromium must not resolve names itself, over any transport (the egress proxy does).
  // NetworkTimeServiceQuerying: the secure-time check (http://clients2.google.com/time/...).
  "--disable-features=IsolateOrigins,site-per-process,Translate,MediaRouter,OptimizationHints,DnsOverHttps,NetworkTimeServiceQuerying",
  // Chromium calls home at start even with --disable-component-update and --disable-sync: the
  // component updater (update.googleapis.com) and account sign-in (accounts.google.com). Pointed at
  // an address nothing listens on, they stay quiet; otherwise every session's byte count and
  // egress log would carry Google's traffic, not the caller's. (A page may still visit Google.)
  "--component-updater=url-source=http://0.0.0.0:9",
  "--gaia-url=http://0.0.0.0:9",
  // WebRTC could reach private addresses over UDP, around the egress proxy: with a proxy set, this
  // policy leaves WebRTC only proxied TCP (TURN over the proxy), which the proxy judges.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--mute-audio",
];

export interface ChromiumProcess {
  browser: Browser;
  /**
   * The egress proxy every request of this browser goes through (null only for a browser launched
   * without one: benches and page-state tests on local fixtures). It ends with the process.
   */
  egress: EgressProxy | null;
  userDataDir: string;
  pid: number | null;
  /** The browser's user agent with "HeadlessChrome" (which sites treat as a bot) made "Chrome". */
  userAgent: string;
  /** Chromium's full version ("131.0.6778.85"). */
  version: string;
  /**
   * The DevTools websocket (ws://127.0.0.1:<port>/devtools/browser/<uuid>) when launched with
   * `websocket: true` (remote browser sessions relay their clients to it); null over a pipe.
   */
  wsEndpoint: string | null;
  /** One protocol round trip (puppeteer caches `browser.version()`, so it cannot tell liveness). */
  ping(): Promise<void>;
  /**
   * Resolves once the process has exited and the profile directory is gone. Idempotent.
   * `force` skips the polite close (a browser that stopped answering would only waste its time).
   */
  terminate(opts?: { force?: boolean }): Promise<void>;
}

const POLITE_CLOSE_MS = 3000;

const exited = (proc: ChildProcess | null): Promise<void> =>
  !proc || proc.exitCode !== null || proc.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => proc.once("exit", () => resolve()));

function killGroup(proc: ChildProcess | null): void {
  if (!proc?.pid) return;
  try {
    // puppeteer starts Chromium detached (its own process group): this reaches the zygote and renderers too.
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // No such group (already gone, or not a group leader): fall back to the process itself.
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  }
}

/**
 * Removes a profile directory and the socket directory Chromium made for it in the temp dir
 * (`org.chromium.Chromium.*`, linked from the profile's SingletonSocket): a killed browser never
 * removes that one itself.
 */
async function removeProfile(userDataDir: string): Promise<void> {
  const socket = await readlink(path.join(userDataDir, "SingletonSocket")).catch(() => null);
  const socketDir = socket ? path.dirname(socket) : null;
  if (socketDir && path.dirname(socketDir) === tmpdir() && path.basename(socketDir).startsWith("org.chromium.Chromium.")) {
    await rm(socketDir, { recursive: true, force: true });
  }
  await rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

/**
 * Launches Chromium. With `egress`, an egress proxy is started first and the browser sends all its
 * traffic through it (`--proxy-server`; `<-loopback>` stops Chromium's implicit loopback bypass, so
 * 127.0.0.1 and localhost are judged too); the proxy is closed when the process is terminated.
 */
export async function launchChromium(
  executablePath: string,
  timeoutMs: number,
  egress?: EgressProxyOptions,
  opts: LaunchOptions = {},
): Promise<ChromiumProcess> {
  const proxy = egress ? await startEgressProxy(egress) : null;
  try {
    return await launchWith(executablePath, timeoutMs, proxy, opts);
  } catch (err) {
    await proxy?.close();
    throw err;
  }
}

export interface LaunchOptions {
  /**
   * Serve DevTools on a loopback websocket (`--remote-debugging-port=0`, which Chromium binds to
   * 127.0.0.1 only) instead of a pipe, so more than one client can connect (remote sessions). Only
   * this machine can reach it, and the egress proxy refuses loopback to every page, so no page can.
   */
  websocket?: boolean;
  /** Extra Chromium flags (the stealth profile's). */
  extraArgs?: string[];
}

async function launchWith(
  executablePath: string,
  timeoutMs: number,
  proxy: EgressProxy | null,
  opts: LaunchOptions,
): Promise<ChromiumProcess> {
  const userDataDir = await mkdtemp(path.join(tmpdir(), "osprey-chromium-"));
  // Network prediction off (the pref behind the NetworkPredictionOptions policy): otherwise Chromium
  // preconnects to a navigation's host before request interception has refused it.
  await mkdir(path.join(userDataDir, "Default"));
  await writeFile(path.join(userDataDir, "Default", "Preferences"), JSON.stringify({ net: { network_prediction_options: 2 } }));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      userDataDir,
      headless: true,
      pipe: !opts.websocket,
      // A copy: puppeteer moves --disable-features out of the array it is given.
      args: [
        ...CHROMIUM_ARGS,
        ...(proxy ? [`--proxy-server=${proxy.url}`, `--proxy-bypass-list=${PROXY_BYPASS_LIST}`] : []),
        ...(opts.extraArgs ?? []),
      ],
      // Popups open pages whose requests this pool does not intercept: keep Chromium's popup blocker on.
      ignoreDefaultArgs: ["--disable-popup-blocking"],
      defaultViewport: { width: 1280, height: 900 },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: timeoutMs,
      protocolTimeout: 30_000,
      downloadBehavior: { policy: "deny" },
    });
  } catch (err) {
    await removeProfile(userDataDir);
    throw err;
  }
  const proc = browser.process();
  let ending: Promise<void> | null = null;
  const terminate = (opts: { force?: boolean } = {}): Promise<void> => {
    ending ??= (async () => {
      const gone = exited(proc);
      if (!opts.force) {
        const polite = browser.close().catch(() => {});
        const timer = new Promise<void>((resolve) => setTimeout(resolve, POLITE_CLOSE_MS).unref());
        await Promise.race([Promise.all([polite, gone]), timer]);
      }
      killGroup(proc); // children of a politely closed browser can linger too
      await gone;
      await Promise.all([removeProfile(userDataDir), proxy?.close()]);
    })();
    return ending;
  };
  try {
    const [userAgent, session] = await Promise.all([browser.userAgent(), browser.target().createCDPSession()]);
    return {
      browser,
      egress: proxy,
      userDataDir,
      pid: proc?.pid ?? null,
      userAgent: userAgent.replace("HeadlessChrome/", "Chrome/"),
      version: /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? "0.0.0.0",
      wsEndpoint: opts.websocket ? browser.wsEndpoint() : null,
      ping: async () => {
        await session.send("Browser.getVersion");
      },
      terminate,
    };
  } catch (err) {
    await terminate({ force: true });
    throw err;
  }
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

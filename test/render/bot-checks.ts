import type { IncomingMessage, ServerResponse } from "node:http";
import type { Page } from "puppeteer-core";

/**
 * A page that runs the common bot checks in page JavaScript (the ones public "am I headless" pages
 * and anti-bot scripts run) and writes `window.__checks` = {name: {pass, value}}, plus
 * `window.__fingerprint` (the values a site would hash to recognise a machine). The server echoes
 * the request's User-Agent and Accept-Language into the page, so header and JavaScript can be
 * compared, and `?tz=` names the time zone the proxy's country implies.
 */

export type CheckResults = Record<string, { pass: boolean; value: string }>;
export interface PageFingerprint {
  canvas: string;
  imageData: string;
  screen: string;
  userAgent: string;
  webgl: string;
}

interface ServerSide {
  userAgent: string;
  acceptLanguage: string;
  timezone: string;
}

/** Runs in the page (sent as source text: nothing from this module's scope). */
async function runChecks(server: ServerSide): Promise<void> {
  const checks: Record<string, { pass: boolean; value: string }> = {};
  const put = (name: string, pass: boolean, value: unknown) => {
    checks[name] = { pass, value: typeof value === "string" ? value : JSON.stringify(value) };
  };
  const hash = (text: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return (h >>> 0).toString(16);
  };
  const headless = (s: string) => /headless/i.test(s);
  const nav = navigator as Navigator & {
    userAgentData?: { brands: { brand: string; version: string }[] };
    deviceMemory?: number;
  };

  // Real Chrome has the property (false); deleting it is a tell of its own.
  put("webdriver", navigator.webdriver === false && "webdriver" in navigator, String(navigator.webdriver));
  // Patches belong on prototypes: own properties of navigator exist in no real browser.
  put("navigator_own_properties", Object.getOwnPropertyNames(navigator).length === 0, Object.getOwnPropertyNames(navigator));
  put("user_agent", !headless(navigator.userAgent) && !headless(server.userAgent), navigator.userAgent);
  put("user_agent_header", server.userAgent === navigator.userAgent, server.userAgent);
  const brands = nav.userAgentData?.brands ?? [];
  const uaMajor = /Chrome\/(\d+)/.exec(navigator.userAgent)?.[1];
  put(
    "client_hints",
    brands.length > 0 &&
      !brands.some((b) => headless(b.brand)) &&
      brands.some((b) => b.brand.includes("Chrom") && b.version === uaMajor),
    brands.map((b) => `${b.brand} ${b.version}`).join(", "),
  );
  put("plugins", navigator.plugins.length > 0, navigator.plugins.length);
  put("mime_types", navigator.mimeTypes.length > 0, navigator.mimeTypes.length);
  const headerLanguages = server.acceptLanguage.split(",").map((l) => l.split(";")[0]?.trim());
  put(
    "languages",
    navigator.languages.length > 0 &&
      navigator.language === navigator.languages[0] &&
      headerLanguages.join() === navigator.languages.join(),
    `${navigator.languages.join(",")} (header ${server.acceptLanguage})`,
  );
  const chrome = (window as unknown as { chrome?: Record<string, unknown> }).chrome;
  put(
    "window_chrome",
    typeof chrome === "object" && ["app", "csi", "loadTimes"].every((k) => k in chrome),
    Object.keys(chrome ?? {}),
  );
  const state = (await navigator.permissions.query({ name: "notifications" })).state;
  const agrees: Record<string, string> = { default: "prompt", granted: "granted", denied: "denied" };
  put("permissions_consistent", agrees[Notification.permission] === state, `${Notification.permission} / ${state}`);
  // A fresh profile of real Chrome has not been asked (old headless denied notifications outright).
  put("notifications_default", Notification.permission === "default", Notification.permission);
  const gl = document.createElement("canvas").getContext("webgl");
  const info = gl?.getExtension("WEBGL_debug_renderer_info");
  const webgl =
    gl && info ? `${gl.getParameter(info.UNMASKED_VENDOR_WEBGL)} / ${gl.getParameter(info.UNMASKED_RENDERER_WEBGL)}` : "";
  put("webgl_gpu", webgl !== "" && !/swiftshader|llvmpipe|softpipe|offscreen/i.test(webgl), webgl);
  const s = screen;
  put(
    "screen",
    !(s.width === 800 && s.height === 600) &&
      s.width >= innerWidth &&
      s.availHeight <= s.height &&
      matchMedia(`(device-width: ${s.width}px) and (device-height: ${s.height}px)`).matches,
    `${s.width}x${s.height} avail ${s.availWidth}x${s.availHeight} inner ${innerWidth}x${innerHeight}`,
  );
  put(
    "outer_dimensions",
    outerWidth >= innerWidth && outerHeight > innerHeight && outerHeight <= s.availHeight,
    `${outerWidth}x${outerHeight}`,
  );
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  put("timezone", timezone === server.timezone, `${timezone} (expected ${server.timezone})`);
  put("hardware_concurrency", navigator.hardwareConcurrency > 0, navigator.hardwareConcurrency);

  // Functions stealth code replaces must still print as native code, under their own names.
  const getterOf = (o: object | undefined, p: string) => (o ? Object.getOwnPropertyDescriptor(o, p)?.get : undefined);
  const fns: Record<string, unknown> = {
    "Function.prototype.toString": Function.prototype.toString,
    "navigator.webdriver": getterOf(Navigator.prototype, "webdriver"),
    "navigator.hardwareConcurrency": getterOf(Navigator.prototype, "hardwareConcurrency"),
    "screen.width": getterOf(Screen.prototype, "width"),
    outerWidth: getterOf(window, "outerWidth"),
    "Notification.permission": getterOf(Notification, "permission"),
    "PermissionStatus.state": getterOf(PermissionStatus.prototype, "state"),
    toDataURL: HTMLCanvasElement.prototype.toDataURL,
    toBlob: HTMLCanvasElement.prototype.toBlob,
    getImageData: CanvasRenderingContext2D.prototype.getImageData,
    getParameter: WebGLRenderingContext.prototype.getParameter,
  };
  const notNative = Object.entries(fns)
    .filter(([, fn]) => {
      if (typeof fn !== "function") return true;
      const text = Function.prototype.toString.call(fn);
      return !/^function (get )?\w+\(\) \{ \[native code\] \}$/.test(text) || "prototype" in fn;
    })
    .map(([name]) => name);
  put("native_functions", notNative.length === 0, notNative.join(", ") || "all native");

  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  const inner = frame.contentWindow as (Window & typeof globalThis) | null;
  const view = (w: Window & typeof globalThis) =>
    [
      w.navigator.webdriver,
      w.navigator.userAgent,
      w.navigator.languages.join(),
      w.navigator.hardwareConcurrency,
      w.screen.width,
    ].join(" | ");
  put("iframe_consistent", inner !== null && view(inner) === view(window), inner ? view(inner) : "no contentWindow");
  frame.remove();

  const code = "postMessage([navigator.userAgent, navigator.languages.join(), navigator.hardwareConcurrency].join(' | '))";
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  const fromWorker = await new Promise<string>((resolve) => {
    worker.onmessage = (e) => resolve(String(e.data));
    worker.onerror = (e) => resolve(`error: ${e.message}`);
  });
  worker.terminate();
  const workerUa = fromWorker.split(" | ")[0] ?? "";
  put("worker_user_agent", !headless(workerUa) && workerUa === navigator.userAgent, workerUa);
  put(
    "worker_consistent",
    fromWorker === [navigator.userAgent, navigator.languages.join(), navigator.hardwareConcurrency].join(" | "),
    fromWorker,
  );

  // Noise must not make a blank canvas non-blank (a tell of naive canvas noise).
  const blank = document.createElement("canvas").getContext("2d") as CanvasRenderingContext2D;
  const blankPixels = blank.getImageData(0, 0, 50, 50).data;
  put(
    "canvas_blank_clean",
    blankPixels.every((v) => v === 0),
    blankPixels.filter((v) => v !== 0).length,
  );

  // What a site hashes to recognise a machine again.
  const canvas = document.createElement("canvas");
  canvas.width = 240;
  canvas.height = 60;
  const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
  const gradient = ctx.createLinearGradient(0, 0, 240, 0);
  gradient.addColorStop(0, "#f60");
  gradient.addColorStop(1, "#069");
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, 240, 60);
  ctx.fillStyle = "rgba(255, 255, 255, 0.9)";
  ctx.font = "18px sans-serif";
  ctx.fillText("Osprey fingerprint, 1.0 <canvas>", 6, 36);
  (window as unknown as { __fingerprint: unknown }).__fingerprint = {
    canvas: hash(canvas.toDataURL()),
    imageData: hash(Array.from(ctx.getImageData(0, 0, 240, 60).data).join()),
    screen: `${s.width}x${s.height}/${s.availWidth}x${s.availHeight}/${s.colorDepth}`,
    userAgent: navigator.userAgent,
    webgl,
  };
  (window as unknown as { __checks: unknown }).__checks = checks;
}

/** The check page for one request (its headers are the ones compared with JavaScript's view). */
export function botCheckPage(req: IncomingMessage): string {
  const server: ServerSide = {
    userAgent: String(req.headers["user-agent"] ?? ""),
    acceptLanguage: String(req.headers["accept-language"] ?? ""),
    timezone: new URL(req.url ?? "/", "http://x").searchParams.get("tz") ?? "America/New_York",
  };
  const data = JSON.stringify(server).replace(/</g, "\\u003c");
  return `<!doctype html><html><head><title>Bot checks</title></head><body><p>Bot checks</p>
<script>(${runChecks.toString()})(${data}).catch((e) => { window.__checks = { error: { pass: false, value: String(e) } }; });</script>
</body></html>`;
}

export function serveBotChecks(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(botCheckPage(req));
}

/** Loads the check page and returns its results and fingerprint once every check has run. */
export async function runBotChecks(page: Page, url: string): Promise<{ checks: CheckResults; fingerprint: PageFingerprint }> {
  await page.goto(url);
  await page.waitForFunction(() => "__checks" in window, { timeout: 10_000 });
  return page.evaluate(() => {
    const w = window as unknown as { __checks: CheckResults; __fingerprint: PageFingerprint };
    return { checks: w.__checks, fingerprint: w.__fingerprint };
  });
}

import { isExecutable, launchChromium } from "../../containers/browser/chromium-process.ts";
import { startEgressProxy } from "../../containers/browser/egress-proxy.ts";
import { type Handler, html, startOrigin } from "../helpers/origin.ts";

const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;

/**
 * What the egress proxy costs a browser (issue 15): the same page (a document, 20 scripts and
 * stylesheets, 200 KiB in all) loaded N times in a fresh incognito context by one Chromium with
 * every request through the proxy, and by one without a proxy (the anchor), interleaved so that
 * both see the same machine. Prints load-time percentiles for each and the bytes the proxy
 * counted against the bytes the origin served (usage records need them within 5 %).
 */
export async function egressBench(): Promise<void> {
  if (!isExecutable(CHROME)) {
    process.stdout.write(`no Chromium at ${CHROME}; set CHROME_PATH\n`);
    return;
  }
  const n = Number(process.env.BENCH_N ?? 60);
  const asset = "/* asset */ ".repeat(800); // ~9.6 KiB
  let served = 0;
  const routes: Record<string, Handler> = {};
  const tags: string[] = [];
  for (let i = 0; i < 20; i++) {
    const path = i % 2 ? `/a${i}.css` : `/a${i}.js`;
    routes[path] = (_req, res) => {
      served += asset.length;
      res.writeHead(200, { "content-type": i % 2 ? "text/css" : "text/javascript", "cache-control": "no-store" });
      res.end(asset);
    };
    tags.push(i % 2 ? `<link rel="stylesheet" href="${path}">` : `<script src="${path}"></script>`);
  }
  const page = `<!doctype html><html><head><title>bench</title>${tags.join("")}</head><body><p>${"text ".repeat(400)}</p></body></html>`;
  routes["/"] = (req, res) => {
    served += page.length;
    html(page)(req, res);
  };
  const origin = await startOrigin(routes);
  const allow = [{ host: "127.0.0.1", port: origin.port }];
  const direct = await launchChromium(CHROME, 30_000);
  const proxied = await launchChromium(CHROME, 30_000, { allowPrivateHosts: allow });
  const times: Record<"direct" | "proxied", number[]> = { direct: [], proxied: [] };
  let proxiedServed = 0;
  let proxiedCounted = 0;
  try {
    for (let i = 0; i < n + 5; i++) {
      for (const which of ["direct", "proxied"] as const) {
        const browser = which === "direct" ? direct.browser : proxied.browser;
        // Runs take a proxy of their own per context; measure that shape.
        const proxy = which === "proxied" ? await startEgressProxy({ allowPrivateHosts: allow }) : null;
        const context = await browser.createBrowserContext(
          proxy ? { proxyServer: proxy.url, proxyBypassList: ["<-loopback>"] } : {},
        );
        const tab = await context.newPage();
        const before = served;
        const t = performance.now();
        await tab.goto(`${origin.url}/`, { waitUntil: "load" });
        const ms = performance.now() - t;
        await context.close();
        if (proxy) {
          await proxy.close();
          if (i >= 5) {
            proxiedServed += served - before;
            proxiedCounted += proxy.counters().rxBytes;
          }
        }
        if (i >= 5) times[which].push(ms); // the first five warm up both browsers
      }
    }
  } finally {
    await Promise.all([direct.terminate(), proxied.terminate(), origin.close()]);
  }
  for (const which of ["direct", "proxied"] as const) {
    const s = times[which].sort((a, b) => a - b);
    process.stdout.write(
      `${which === "direct" ? "Chromium, no proxy (anchor)" : "Chromium through the egress proxy"}`.padEnd(36) +
        `n=${s.length}  p50=${pct(s, 0.5).toFixed(1)} ms  p95=${pct(s, 0.95).toFixed(1)} ms\n`,
    );
  }
  const ratio = pct(times.proxied, 0.5) / Math.max(0.001, pct(times.direct, 0.5));
  process.stdout.write(`p50 ratio proxied/direct: ${ratio.toFixed(2)}\n`);
  process.stdout.write(
    `bytes: origin served ${proxiedServed} body bytes, the proxy counted ${proxiedCounted} received (headers included): ` +
      `${((proxiedCounted / Math.max(1, proxiedServed) - 1) * 100).toFixed(1)} % over\n`,
  );
}

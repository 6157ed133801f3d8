/**
 * Page-state size on real pages: loads archived pages from the extraction benchmark into Chromium
 * (served from a loopback origin, JavaScript off, every request to another origin refused, so
 * nothing leaves the machine) and prints the rendered state's size per page. Prints; asserts nothing.
 *
 *   node test/agent/page-state/state-size.ts [count=10] [dir]
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { approxTokens, capturePageState, renderPageState } from "../../../containers/agent/page-state/index.ts";
import { isExecutable, launchChromium } from "../../../containers/browser/chromium-process.ts";
import { startOrigin } from "../../helpers/origin.ts";

const count = Number(process.argv[2] ?? 10);
const dir = process.argv[3] ?? path.resolve(import.meta.dirname, "../../../../shared/bench/extraction/scrapinghub-aeb/html");
const chrome = process.env.CHROME_PATH || "/usr/bin/chromium";
if (!isExecutable(chrome)) throw new Error(`no Chromium at ${chrome} (set CHROME_PATH)`);

const files = (await readdir(dir))
  .filter((f) => f.endsWith(".html.gz"))
  .sort()
  .slice(0, count);
const pages = new Map<string, Buffer>();
for (const f of files) pages.set(`/${f.replace(/\.html\.gz$/, "")}`, gunzipSync(await readFile(path.join(dir, f))));
const origin = await startOrigin(
  Object.fromEntries(
    [...pages].map(([p, body]) => [p, (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(body)]),
  ),
);
const chromium = await launchChromium(chrome, 30_000);
const rows: { page: string; html: number; elements: number; chars: number; tokens: number; ms: number }[] = [];
try {
  for (const [p, body] of pages) {
    const page = await chromium.browser.newPage();
    try {
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      page.on(
        "request",
        (r) => void (r.url().startsWith(origin.url) ? r.continue() : r.abort("blockedbyclient")).catch(() => {}),
      );
      await page.goto(`${origin.url}${p}`, { waitUntil: "load", timeout: 20_000 });
      const started = performance.now();
      const state = await capturePageState(page);
      const ms = performance.now() - started;
      const text = renderPageState(state);
      rows.push({
        page: p.slice(1, 13),
        html: body.length,
        elements: state.elements.length,
        chars: text.length,
        tokens: approxTokens(text),
        ms: Math.round(ms),
      });
    } finally {
      await page.close().catch(() => {});
    }
  }
} finally {
  await chromium.terminate();
  await origin.close();
}
const lines = [
  "page          html_bytes  elements  state_chars  approx_tokens  chars/4  capture_ms",
  ...rows.map((r) =>
    [
      r.page.padEnd(12),
      String(r.html).padStart(11),
      String(r.elements).padStart(9),
      String(r.chars).padStart(12),
      String(r.tokens).padStart(14),
      String(Math.ceil(r.chars / 4)).padStart(8),
      String(r.ms).padStart(11),
    ].join(" "),
  ),
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
lines.push(
  `median: ${median(rows.map((r) => r.chars))} chars, ${median(rows.map((r) => r.tokens))} approx tokens, ${median(rows.map((r) => r.elements))} elements`,
);
process.stdout.write(`${lines.join("\n")}\n`);

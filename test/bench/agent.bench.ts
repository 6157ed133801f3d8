/**
 * The agent's page state, measured two ways (prints; asserts nothing):
 * A. size: real pages from ../shared/bench/extraction (WCXB dev, 8 of each page type, and the first
 *    AEB articles; read at run time, never copied) served from a loopback origin to Chromium with
 *    JavaScript off and every other origin refused, so nothing leaves the machine. Our rendered state
 *    is counted with `approxTokens` and with o200k_base (gpt-tokenizer) beside Browser Use 0.5.11's
 *    state of the same page (its script from BROWSER_USE_DOM_JS, see agent-browser-use.ts), and its
 *    interactive elements are checked against ours.
 * B. per-step overhead without the model, on the page-state fixture site: capture, render, the agent's
 *    verified action (executeAction on a run-browser-pool session) and the live-view frame.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { approxTokens, capturePageState, renderPageState } from "../../containers/agent/page-state/index.ts";
import { isExecutable, launchChromium } from "../../containers/browser/chromium-process.ts";
import { startOrigin } from "../helpers/origin.ts";
import { type BrowserUseArgs, browserUseState } from "./agent-browser-use.ts";
import { coverage, coverageReport, type Row } from "./agent-coverage.ts";
import { agentStepBench } from "./agent-step.ts";
import { agentTasksBench } from "./agent-tasks.ts";

const DATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench/extraction");
const PER_TYPE = 8;
const AEB_PAGES = 14;
const out = (s: string) => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** browser-use's DomService default arguments (the brief's comparison), and the Agent's (BrowserProfile 0.5.11). */
const BU_DEFAULT: BrowserUseArgs = {
  doHighlightElements: false,
  focusHighlightIndex: -1,
  viewportExpansion: 0,
  debugMode: false,
};
const BU_AGENT: BrowserUseArgs = { ...BU_DEFAULT, doHighlightElements: true, viewportExpansion: 500 };
const BU_WHOLE: BrowserUseArgs = { ...BU_DEFAULT, viewportExpansion: -1 };

function pickPages(): { id: string; type: string; path: string }[] {
  const picked: { id: string; type: string; path: string }[] = [];
  const base = join(DATA, "wcxb-dev/dev");
  const ids = readFileSync(join(DATA, "wcxb-dev/DEV_SUBSET_IDS.txt"), "utf8").split(/\s+/).filter(Boolean);
  const perType = new Map<string, number>();
  for (const id of ids) {
    const gt = JSON.parse(readFileSync(join(base, `ground-truth/${id}.json`), "utf8"));
    const type: string = gt._internal?.page_type?.primary ?? "unknown";
    if ((perType.get(type) ?? 0) >= PER_TYPE) continue;
    perType.set(type, (perType.get(type) ?? 0) + 1);
    picked.push({ id, type, path: join(base, `html/${id}.html.gz`) });
  }
  const aeb = join(DATA, "scrapinghub-aeb/html");
  for (const f of readdirSync(aeb).sort().slice(0, AEB_PAGES))
    picked.push({ id: f.replace(/\.html\.gz$/, ""), type: "aeb-article", path: join(aeb, f) });
  return picked;
}

const sizes = (text: string) => ({ approx: approxTokens(text), o200k: countTokens(text), chars: text.length });

async function sizeBench(): Promise<Record<string, unknown>> {
  const chrome = process.env.CHROME_PATH || "/usr/bin/chromium";
  if (!isExecutable(chrome)) {
    out(`skipped: no Chromium at ${chrome} (set CHROME_PATH)`);
    return {};
  }
  const buPath = process.env.BROWSER_USE_DOM_JS;
  const buCode = buPath && existsSync(buPath) ? readFileSync(buPath, "utf8") : null;
  if (!buCode)
    out(
      `Browser Use columns skipped: set BROWSER_USE_DOM_JS to browser-use 0.5.11's browser_use/dom/dom_tree/index.js${buPath ? ` (not found: ${buPath})` : ""}`,
    );
  const pages = pickPages();
  const origin = await startOrigin();
  for (const p of pages)
    origin.route(`/${p.id}`, (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(gunzipSync(readFileSync(p.path)));
    });
  const chromium = await launchChromium(chrome, 30_000);
  const rows: Row[] = [];
  const failed: string[] = [];
  try {
    for (const p of pages) {
      const page = await chromium.browser.newPage();
      try {
        await page.setJavaScriptEnabled(false);
        await page.setRequestInterception(true);
        page.on(
          "request",
          (r) => void (r.url().startsWith(`${origin.url}/`) ? r.continue() : r.abort("blockedbyclient")).catch(() => {}),
        );
        await page.goto(`${origin.url}/${p.id}`, { waitUntil: "load", timeout: 20_000 });
        // Browser Use first, so that our index attributes are not in the DOM it reads.
        let bu: Row["bu"];
        let whole: Awaited<ReturnType<typeof browserUseState>> | undefined;
        if (buCode) {
          const def = await browserUseState(page, buCode, BU_DEFAULT);
          const agent = await browserUseState(page, buCode, BU_AGENT);
          whole = await browserUseState(page, buCode, BU_WHOLE);
          const of = (s: typeof def) => ({ ...sizes(s.text), elements: s.highlighted.length });
          bu = { default: of(def), agent: of(agent), whole: of(whole) };
        }
        const scoped = await capturePageState(page, { scope: "viewport" });
        const state = await capturePageState(page);
        const text = renderPageState(state);
        const row: Row = {
          id: p.id,
          type: p.type,
          ours: {
            ...sizes(text),
            elements: state.elements.length,
            inViewport: state.elements.filter((e) => e.inViewport).length,
          },
          oursViewport: { ...sizes(renderPageState(scoped)), elements: scoped.elements.length },
        };
        if (bu) row.bu = bu;
        if (whole) row.cover = await coverage(page, whole.highlighted);
        rows.push(row);
      } catch (err) {
        failed.push(`${p.id}: ${(err as Error).message.slice(0, 100)}`);
      } finally {
        await page.close().catch(() => {});
      }
    }
  } finally {
    await chromium.terminate();
    await origin.close();
  }

  out(`\n## Page-state size on ${rows.length} real pages (tokens: approx = our approxTokens, o200k = gpt-tokenizer o200k_base)`);
  if (failed.length) out(`not loaded (${failed.length}): ${failed.join("; ")}`);
  const stat = (xs: number[]) => ({ median: pct(xs, 0.5), p90: pct(xs, 0.9), mean: Math.round(mean(xs)) });
  const summary: Record<string, unknown> = { pages: rows.length };
  const cols: [string, (r: Row) => { approx: number; o200k: number; chars: number; elements: number } | undefined][] = [
    ["osprey whole page (far text abridged)", (r) => r.ours],
    ["osprey viewport-first (viewport +500px)", (r) => r.oursViewport],
    ["browser-use default args (viewport 0)", (r) => r.bu?.default],
    ["browser-use Agent defaults (highlight, +500px)", (r) => r.bu?.agent],
    ["browser-use whole page (expansion -1)", (r) => r.bu?.whole],
  ];
  out(
    "state                                            o200k median   p90    mean | approx median  p90    mean | elements median",
  );
  for (const [name, get] of cols) {
    const vals = rows.map(get).filter((v) => v !== undefined);
    if (!vals.length) continue;
    const o = stat(vals.map((v) => v.o200k));
    const a = stat(vals.map((v) => v.approx));
    const e = pct(
      vals.map((v) => v.elements),
      0.5,
    );
    out(
      `${name.padEnd(48)} ${String(o.median).padStart(12)} ${String(o.p90).padStart(6)} ${String(o.mean).padStart(6)} | ${String(a.median).padStart(13)} ${String(a.p90).padStart(5)} ${String(a.mean).padStart(6)} | ${String(e).padStart(15)}`,
    );
    summary[name] = { o200k: o, approx: a, elementsMedian: e };
  }
  if (buCode) {
    out("\nratio osprey / browser-use (o200k tokens)       per-page median   p90   total(sum/sum)   pages where ours ≤ 50%");
    const ratios: Record<string, unknown> = {};
    const pairs = [
      ["whole", "whole", (r: Row) => r.ours.o200k],
      ["agent", "agent", (r: Row) => r.oursViewport?.o200k ?? 0],
      ["default", "default", (r: Row) => r.oursViewport?.o200k ?? 0],
    ] as const;
    for (const [name, key, ours] of pairs) {
      const rs = rows.map((r) => ours(r) / Math.max(1, r.bu?.[key].o200k ?? 1));
      const total = sum(rows.map(ours)) / Math.max(1, sum(rows.map((r) => r.bu?.[key].o200k ?? 0)));
      const half = rs.filter((x) => x <= 0.5).length;
      const label = `${key === "whole" ? "whole page" : "viewport-first"} vs ${key}`;
      out(
        `${label.padEnd(47)} ${pct(rs, 0.5).toFixed(2).padStart(15)} ${pct(rs, 0.9).toFixed(2).padStart(5)} ${total.toFixed(2).padStart(16)}   ${half}/${rows.length}`,
      );
      ratios[name] = {
        median: +pct(rs, 0.5).toFixed(3),
        p90: +pct(rs, 0.9).toFixed(3),
        total: +total.toFixed(3),
        atMostHalf: half,
      };
    }
    summary.ratio = ratios;

    summary.coverage = coverageReport(rows);
  }
  if (process.argv.includes("--verbose")) {
    out("\npage         type          ours o200k/approx/elements   bu-default   bu-agent   bu-whole (o200k/elements)");
    for (const r of rows)
      out(
        `${r.id.slice(0, 12).padEnd(12)} ${r.type.padEnd(13)} ${`${r.ours.o200k}/${r.ours.approx}/${r.ours.elements}`.padStart(24)}   ${r.bu ? `${r.bu.default.o200k}/${r.bu.default.elements}`.padStart(10) : ""}   ${r.bu ? `${r.bu.agent.o200k}/${r.bu.agent.elements}`.padStart(8) : ""}   ${r.bu ? `${r.bu.whole.o200k}/${r.bu.whole.elements}`.padStart(8) : ""}`,
      );
  }
  return summary;
}

/** `--only size|step|tasks` runs one part (all three by default). */
function only(): string | null {
  const at = process.argv.indexOf("--only");
  return at >= 0 ? (process.argv[at + 1] ?? null) : null;
}

export async function agentBench(): Promise<void> {
  const part = only();
  const size = part === null || part === "size" ? await sizeBench() : undefined;
  const step = part === null || part === "step" ? await agentStepBench() : undefined;
  const tasks = part === null || part === "tasks" ? await agentTasksBench() : undefined;
  out(`\nJSON ${JSON.stringify({ bench: "agent", size, step, tasks })}`);
}

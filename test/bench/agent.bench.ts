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
import type { Page } from "puppeteer-core";
import { approxTokens, capturePageState, renderPageState } from "../../containers/agent/page-state/index.ts";
import { isExecutable, launchChromium } from "../../containers/browser/chromium-process.ts";
import { startOrigin } from "../helpers/origin.ts";
import { type BrowserUseArgs, browserUseState } from "./agent-browser-use.ts";
import { agentStepBench } from "./agent-step.ts";

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

interface Row {
  id: string;
  type: string;
  ours: { approx: number; o200k: number; chars: number; elements: number; inViewport: number };
  bu?: Record<"default" | "agent" | "whole", { approx: number; o200k: number; chars: number; elements: number }>;
  /** browser-use's whole-page highlighted elements against ours (same element, inside one of ours, holding one of ours, none). */
  cover?: {
    same: number;
    inside: number;
    holds: number;
    label: number;
    hidden: number;
    clipped: number;
    invisible: number;
    noHref: number;
    missed: number;
    unresolved: number;
    examples: string[];
  };
}

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

/**
 * Where each of browser-use's highlighted elements (xpaths in the top document) stands against ours
 * (`data-osprey-idx`). Those none of ours covers are sorted by why: the label of a control we list,
 * under aria-hidden or inert (we leave those out on purpose), clipped to ≤1px (screen-reader-only
 * links), transparent or visibility-hidden (closed menus), an `<a>` without href (scripted, and
 * scripts are off here), or other (the ones to look at).
 */
async function coverage(page: Page, items: { tag: string; xpath: string }[]): Promise<NonNullable<Row["cover"]>> {
  return page.evaluate((list) => {
    const r = {
      same: 0,
      inside: 0,
      holds: 0,
      missed: 0,
      unresolved: 0,
      label: 0,
      hidden: 0,
      clipped: 0,
      invisible: 0,
      noHref: 0,
      examples: [] as string[],
    };
    const clipped = (el: Element) => {
      for (let e: Element | null = el; e; e = e.parentElement) {
        const b = e.getBoundingClientRect();
        if ((b.width <= 1 || b.height <= 1) && (e === el || getComputedStyle(e).overflow !== "visible")) return true;
      }
      return false;
    };
    for (const { tag, xpath } of list) {
      let el: Element | null = null;
      try {
        el = document.evaluate(`/${xpath}`, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null)
          .singleNodeValue as Element | null;
      } catch {}
      if (!el || el.localName !== tag) r.unresolved++;
      else if (el.hasAttribute("data-osprey-idx")) r.same++;
      else if (el.closest("[data-osprey-idx]")) r.inside++;
      else if (el.querySelector("[data-osprey-idx]")) r.holds++;
      else if (el instanceof HTMLLabelElement && el.control?.hasAttribute("data-osprey-idx")) r.label++;
      else if (el.closest('[aria-hidden="true"], [inert]')) r.hidden++;
      else if (clipped(el)) r.clipped++;
      else if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) r.invisible++;
      else if (el.localName === "a" && !el.hasAttribute("href")) r.noHref++;
      else {
        r.missed++;
        if (r.examples.length < 3) r.examples.push(el.outerHTML.replace(/\s+/g, " ").slice(0, 140));
      }
    }
    return r;
  }, items);
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
    ["osprey (all elements, far text abridged)", (r) => r.ours],
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
    for (const key of ["default", "agent", "whole"] as const) {
      const rs = rows.map((r) => r.ours.o200k / Math.max(1, r.bu?.[key].o200k ?? 1));
      const total = sum(rows.map((r) => r.ours.o200k)) / Math.max(1, sum(rows.map((r) => r.bu?.[key].o200k ?? 0)));
      const half = rs.filter((x) => x <= 0.5).length;
      out(
        `vs ${key.padEnd(44)} ${pct(rs, 0.5).toFixed(2).padStart(15)} ${pct(rs, 0.9).toFixed(2).padStart(5)} ${total.toFixed(2).padStart(16)}   ${half}/${rows.length}`,
      );
      ratios[key] = {
        median: +pct(rs, 0.5).toFixed(3),
        p90: +pct(rs, 0.9).toFixed(3),
        total: +total.toFixed(3),
        atMostHalf: half,
      };
    }
    summary.ratio = ratios;

    out("\n## Interactive coverage: browser-use's highlighted elements (whole page, expansion -1) against ours");
    const c = rows.map((r) => r.cover).filter((x) => x !== undefined);
    const tot = (
      k: "same" | "inside" | "holds" | "label" | "hidden" | "clipped" | "invisible" | "noHref" | "missed" | "unresolved",
    ) => sum(c.map((x) => x[k]));
    out(
      `theirs ${sum(rows.map((r) => r.bu?.whole.elements ?? 0))}, ours ${sum(rows.map((r) => r.ours.elements))}: same element ${tot("same")}, inside one of ours ${tot("inside")}, holds one of ours ${tot("holds")}`,
    );
    out(
      `not covered by ours: label of a control we list ${tot("label")}, under aria-hidden/inert ${tot("hidden")}, clipped to ≤1px ${tot("clipped")}, opacity 0 or visibility hidden ${tot("invisible")}, <a> without href ${tot("noHref")}, other ${tot("missed")}; xpath not resolved (frame/shadow/odd names) ${tot("unresolved")}`,
    );
    const fewer = rows.filter((r) => r.bu && r.ours.elements < r.bu.whole.elements);
    const fewerVp = rows.filter((r) => r.bu && r.ours.inViewport < r.bu.default.elements);
    out(
      `pages where we list fewer elements: ${fewer.length}/${rows.length} whole page (${fewer.map((r) => `${r.id.slice(0, 10)} ${r.ours.elements}<${r.bu?.whole.elements}`).join(", ") || "none"})`,
    );
    out(
      `  in the viewport (ours inViewport vs theirs at expansion 0): ${fewerVp.length}/${rows.length} (${fewerVp.map((r) => `${r.id.slice(0, 10)} ${r.ours.inViewport}<${r.bu?.default.elements}`).join(", ") || "none"})`,
    );
    const missed = rows.filter((r) => (r.cover?.missed ?? 0) > 0);
    out(`pages with "other" elements of theirs that none of ours covers: ${missed.length}/${rows.length}`);
    for (const r of missed)
      out(`  ${r.id.slice(0, 12)} (${r.type}): ${r.cover?.missed} missed, e.g. ${r.cover?.examples.join("  |  ")}`);
    summary.coverage = {
      theirs: sum(rows.map((r) => r.bu?.whole.elements ?? 0)),
      ours: sum(rows.map((r) => r.ours.elements)),
      same: tot("same"),
      inside: tot("inside"),
      holds: tot("holds"),
      label: tot("label"),
      hidden: tot("hidden"),
      clipped: tot("clipped"),
      invisible: tot("invisible"),
      noHref: tot("noHref"),
      missed: tot("missed"),
      unresolved: tot("unresolved"),
      pagesFewer: fewer.length,
      pagesFewerInViewport: fewerVp.length,
      pagesMissed: missed.length,
    };
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

export async function agentBench(): Promise<void> {
  const size = await sizeBench();
  const step = await agentStepBench();
  out(`\nJSON ${JSON.stringify({ bench: "agent", size, step })}`);
}

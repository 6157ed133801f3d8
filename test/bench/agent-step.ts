/**
 * Per-step overhead of the agent without the model, on the page-state fixture site (loopback):
 * each step captures the page, renders it, and acts on one element found by `resolveElement`,
 * alternating a link click that navigates (waits for `load`) with typing into the search field.
 * There is no action executor in containers/agent yet, so the actions are puppeteer's click and
 * type on the resolved handle, as an executor would do them.
 */
import type { Page } from "puppeteer-core";
import { capturePageState, type PageState, renderPageState, resolveElement } from "../../containers/agent/page-state/index.ts";
import { isExecutable, launchChromium } from "../../containers/browser/chromium-process.ts";
import { startFixtureSite } from "../agent/page-state/fixture-site.ts";

const STEPS = 100;
const WARMUP = 6;
const out = (s: string) => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;
};

function find(state: PageState, test: (name: string, role: string) => boolean): number {
  const el = state.elements.find((e) => test(e.name, e.role));
  if (!el) throw new Error(`element not found in ${state.url}`);
  return el.index;
}

async function act(page: Page, state: PageState, step: number): Promise<"click" | "type"> {
  const click = step % 2 === 0;
  const index = click
    ? find(state, (name, role) => role === "link" && name === "Next page")
    : find(state, (_name, role) => role === "searchbox");
  const handle = await resolveElement(page, state, index);
  if (!handle) throw new Error(`[${index}] did not resolve`);
  try {
    if (click) await Promise.all([page.waitForNavigation({ waitUntil: "load" }), handle.click()]);
    else {
      await handle.evaluate((el) => {
        (el as HTMLInputElement).value = "";
      });
      await handle.type("kayak");
    }
  } finally {
    await handle.dispose();
  }
  return click ? "click" : "type";
}

export async function agentStepBench(): Promise<Record<string, unknown>> {
  const chrome = process.env.CHROME_PATH || "/usr/bin/chromium";
  if (!isExecutable(chrome)) {
    out(`step overhead skipped: no Chromium at ${chrome} (set CHROME_PATH)`);
    return {};
  }
  const fixture = await startFixtureSite();
  const chromium = await launchChromium(chrome, 30_000);
  const t = { capture: [] as number[], render: [] as number[], action: [] as number[], total: [] as number[] };
  const byKind = { click: [] as number[], type: [] as number[] };
  try {
    const page = await chromium.browser.newPage();
    await page.goto(`${fixture.site.url}/search`, { waitUntil: "load" });
    for (let i = 0; i < WARMUP + STEPS; i++) {
      const t0 = performance.now();
      const state = await capturePageState(page);
      const t1 = performance.now();
      renderPageState(state);
      const t2 = performance.now();
      const kind = await act(page, state, i);
      const t3 = performance.now();
      if (i < WARMUP) continue;
      t.capture.push(t1 - t0);
      t.render.push(t2 - t1);
      t.action.push(t3 - t2);
      t.total.push(t3 - t0);
      byKind[kind].push(t3 - t2);
    }
  } finally {
    await chromium.terminate();
    await fixture.close();
  }
  out(`\n## Per-step overhead without the model (${STEPS} steps on the fixture /search page, after ${WARMUP} warm-up)`);
  out(
    "action: resolveElement + puppeteer click (link, waits for load) / type (5 characters into the search field); no action executor in containers/agent yet",
  );
  out("phase                 p50 ms    p95 ms");
  const figures: Record<string, { p50: number; p95: number }> = {};
  const rows: [string, number[]][] = [
    ["capture", t.capture],
    ["render", t.render],
    ["action", t.action],
    ["  click + load", byKind.click],
    ["  type", byKind.type],
    ["total", t.total],
  ];
  for (const [name, xs] of rows) {
    const f = { p50: +pct(xs, 0.5).toFixed(2), p95: +pct(xs, 0.95).toFixed(2) };
    out(`${name.padEnd(18)} ${f.p50.toFixed(2).padStart(9)} ${f.p95.toFixed(2).padStart(9)}`);
    figures[name.trim().replace(/ \+ load$/, "")] = f;
  }
  return { steps: STEPS, executor: "resolveElement + puppeteer", ...figures };
}

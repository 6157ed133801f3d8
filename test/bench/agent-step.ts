/**
 * Per-step overhead of the agent without the model, on the page-state fixture site (loopback):
 * each step captures the page (`readState`, as the agent does), renders it, and carries out one
 * action with the agent's own executor (`executeAction`, verified: a click is checked to land on
 * the element and is followed by a settle of up to 5 s, typed text is checked to be in the field)
 * on a RunSession of the production browser pool (`createRunBrowserPool`, address policy on, the
 * fixture origins exempt). The actions alternate a click on "Next page" (navigates) with typing
 * into the search field (clearing it first). The live view's screencast (as the worker runs it,
 * storing at most 2 JPEG frames a second) runs throughout, so its cost is in the figures.
 */
import { executeAction } from "../../containers/agent/actions.ts";
import { readState } from "../../containers/agent/capture-step.ts";
import { SETTLE_MAX_MS } from "../../containers/agent/page-ops.ts";
import { type PageState, renderPageState } from "../../containers/agent/page-state/index.ts";
import type { Action } from "../../containers/agent/tools.ts";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import { startLiveFrames } from "../../containers/worker/live-frames.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { memoryBlobStore } from "../../functions/storage/blob-store.ts";
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

function nextAction(state: PageState, step: number): Action {
  if (step % 2 === 0) return { name: "click", index: find(state, (name, role) => role === "link" && name === "Next page") };
  const index = find(state, (_name, role) => role === "searchbox");
  return { name: "type", index, text: "kayak", submit: false, clear: true };
}

export async function agentStepBench(): Promise<Record<string, unknown>> {
  const chrome = process.env.CHROME_PATH || "/usr/bin/chromium";
  if (!isExecutable(chrome)) {
    out(`step overhead skipped: no Chromium at ${chrome} (set CHROME_PATH)`);
    return {};
  }
  const fixture = await startFixtureSite();
  const pool = createRunBrowserPool({
    executablePath: chrome,
    allowPrivateHosts: [fixture.site, fixture.other].map((o) => ({ host: "127.0.0.1", port: Number(new URL(o.url).port) })),
  });
  const t = {
    capture: [] as number[],
    render: [] as number[],
    action: [] as number[],
    total: [] as number[],
  };
  const byKind = { click: [] as number[], type: [] as number[] };
  let live: ReturnType<typeof startLiveFrames> | null = null;
  let frames = 0;
  try {
    const session = await pool.open();
    try {
      const page = session.activePage();
      await page.goto(`${fixture.site.url}/search`, { waitUntil: "load" });
      const blobs = memoryBlobStore();
      live = startLiveFrames({ session, blobs, runId: "run_bench", logger: silentLogger, record: true });
      for (let i = 0; i < WARMUP + STEPS; i++) {
        const t0 = performance.now();
        const state = await readState(session.activePage(), false);
        const t1 = performance.now();
        renderPageState(state);
        const t2 = performance.now();
        const action = nextAction(state, i);
        const res = await executeAction(session, state, action);
        const t3 = performance.now();
        if (!res.ok) throw new Error(`step ${i} ${action.name}: ${res.message}`);
        if (i < WARMUP) continue;
        t.capture.push(t1 - t0);
        t.render.push(t2 - t1);
        t.action.push(t3 - t2);
        t.total.push(t3 - t0);
        byKind[action.name as "click" | "type"].push(t3 - t2);
      }
    } finally {
      frames = (await live?.stop())?.length ?? 0;
      await session.close();
    }
  } finally {
    await pool.close();
    await fixture.close();
  }
  out(`\n## Per-step overhead without the model (${STEPS} steps on the fixture /search page, after ${WARMUP} warm-up)`);
  out(
    `action: the agent's verified actions (executeAction on a createRunBrowserPool session, address policy on), which wait for the page to settle (load + 300 ms network quiet, up to ${SETTLE_MAX_MS / 1000} s) after a click; click "Next page" (navigates) / type 5 characters into the search field with clear (no submit)`,
  );
  out(`live view: the worker's screencast ran throughout (${frames} frames stored, as for capture_config.recording)`);
  out("phase                        p50 ms    p95 ms");
  const figures: Record<string, { p50: number; p95: number }> = {};
  const rows: [string, string, number[]][] = [
    ["capture", "capture", t.capture],
    ["render", "render", t.render],
    ["action", "action", t.action],
    ["  click + settle", "click", byKind.click],
    ["  type", "type", byKind.type],
    ["total", "total", t.total],
  ];
  for (const [name, key, xs] of rows) {
    const f = { p50: +pct(xs, 0.5).toFixed(2), p95: +pct(xs, 0.95).toFixed(2) };
    out(`${name.padEnd(27)} ${f.p50.toFixed(2).padStart(9)} ${f.p95.toFixed(2).padStart(9)}`);
    figures[key] = f;
  }
  return { steps: STEPS, executor: "executeAction (verified, settles)", ...figures };
}

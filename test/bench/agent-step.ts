/**
 * Per-step overhead of the agent without the model, on the page-state fixture site (loopback):
 * each step captures the page (`readState`, as the agent does), renders it, and carries out one
 * action with the agent's own executor (`executeAction`, verified: a click is checked to land on
 * the element and is followed by a settle, typed text is checked to be in the field) on a
 * RunSession of the production browser pool (`createRunBrowserPool`, address policy on, the
 * fixture origins exempt). The actions alternate a click on "Next page" (navigates) with typing
 * into the search field (clearing it first). The live view's screencast (as the worker runs it,
 * storing at most 2 JPEG frames a second) runs throughout, so its cost is in the figures.
 *
 * Two settles, interleaved in the same run (two steps of one, then two of the other, so that both
 * see the same machine): ours (`settleWatch`, on signals: settle.ts) and the anchor, the fixed
 * wait the agent used before (100 ms, then the document's load, then 300 ms without a request in
 * flight, up to 5 s), kept here as it was.
 */
import { executeAction } from "../../containers/agent/actions.ts";
import { readState } from "../../containers/agent/capture-step.ts";
import { sleep } from "../../containers/agent/page-ops.ts";
import { type PageState, renderPageState } from "../../containers/agent/page-state/index.ts";
import { DOM_QUIET_MS, SETTLE_MAX_MS, type Settler, settleWatch } from "../../containers/agent/settle.ts";
import type { Action } from "../../containers/agent/tools.ts";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import { startLiveFrames } from "../../containers/worker/live-frames.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { memoryBlobStore } from "../../functions/storage/blob-store.ts";
import { startFixtureSite } from "../agent/page-state/fixture-site.ts";

/** The anchor: the agent's settle before signals (a fixed 100 ms, load, then 300 ms of network quiet). */
export const fixedWaitSettler: Settler = async (page) => ({
  async settled(maxMs = SETTLE_MAX_MS) {
    const start = Date.now();
    const deadline = start + maxMs;
    await sleep(100);
    while (Date.now() < deadline) {
      const ready = await page.evaluate(() => document.readyState).catch(() => null);
      if (ready === "complete") break;
      await sleep(100);
    }
    const left = deadline - Date.now();
    if (left > 300) await page.waitForNetworkIdle({ idleTime: 300, timeout: left, concurrency: 0 }).catch(() => {});
    return { waitedMs: Date.now() - start, reason: Date.now() < deadline ? "settled" : "cap" };
  },
});

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

type Phase = "capture" | "render" | "action" | "click" | "settle" | "type" | "total";
const PHASES: [string, Phase][] = [
  ["capture", "capture"],
  ["render", "render"],
  ["action", "action"],
  ["  click + settle", "click"],
  ["    of which the settle", "settle"],
  ["  type", "type"],
  ["total", "total"],
];
const empty = (): Record<Phase, number[]> => ({
  capture: [],
  render: [],
  action: [],
  click: [],
  settle: [],
  type: [],
  total: [],
});

/** `settler`, recording how long each settle waited into `into`. */
const timed =
  (settler: Settler, into: number[]): Settler =>
  async (page) => {
    const watch = await settler(page);
    return {
      settled: async (maxMs) => {
        const r = await watch.settled(maxMs);
        into.push(r.waitedMs);
        return r;
      },
    };
  };

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
  const modes = [
    { name: "ours (signals)", settler: settleWatch, t: empty(), waits: [] as number[] },
    { name: "anchor (fixed waits)", settler: fixedWaitSettler, t: empty(), waits: [] as number[] },
  ].map((m) => ({ ...m, settler: timed(m.settler, m.waits) }));
  let live: ReturnType<typeof startLiveFrames> | null = null;
  let frames = 0;
  try {
    const session = await pool.open();
    try {
      const page = session.activePage();
      await page.goto(`${fixture.site.url}/search`, { waitUntil: "load" });
      const blobs = memoryBlobStore();
      live = startLiveFrames({ session, blobs, runId: "run_bench", logger: silentLogger, record: true });
      for (let i = 0; i < WARMUP + 2 * STEPS; i++) {
        // Two steps (a click and a typing) with one settle, then two with the other.
        const mode = modes[Math.floor(i / 2) % 2] as (typeof modes)[number];
        const t0 = performance.now();
        const state = await readState(session.activePage(), false);
        const t1 = performance.now();
        renderPageState(state);
        const t2 = performance.now();
        const action = nextAction(state, i);
        mode.waits.length = 0;
        const res = await executeAction(session, state, action, { settler: mode.settler });
        const t3 = performance.now();
        if (!res.ok) throw new Error(`step ${i} ${action.name}: ${res.message}`);
        if (i < WARMUP) continue;
        mode.t.settle.push(...mode.waits);
        mode.t.capture.push(t1 - t0);
        mode.t.render.push(t2 - t1);
        mode.t.action.push(t3 - t2);
        mode.t.total.push(t3 - t0);
        mode.t[action.name as "click" | "type"].push(t3 - t2);
      }
    } finally {
      frames = (await live?.stop())?.length ?? 0;
      await session.close();
    }
  } finally {
    await pool.close();
    await fixture.close();
  }
  out(
    `\n## Per-step overhead without the model (${STEPS} steps per settle on the fixture /search page, after ${WARMUP} warm-up)`,
  );
  out(
    `action: the agent's verified actions (executeAction on a createRunBrowserPool session, address policy on), which wait for the page to settle after a click (at most ${SETTLE_MAX_MS / 1000} s); click "Next page" (navigates) / type 5 characters into the search field with clear (no submit)`,
  );
  out(
    `settles, interleaved two steps at a time: ours (navigation committed, requests that matter, ${DOM_QUIET_MS} ms of DOM quiet) and the anchor (100 ms + load + 300 ms network quiet)`,
  );
  out(`live view: the worker's screencast ran throughout (${frames} frames stored, as for capture_config.recording)`);
  out(`phase                        ${modes.map((m) => `${m.name.padEnd(22)}`).join("")}ratio ours/anchor`);
  out(`                             ${modes.map(() => "p50 ms    p95 ms    ").join("")}p50    p95`);
  const figures: Record<string, Record<string, { p50: number; p95: number }>> = {};
  for (const m of modes) figures[m.name] = {};
  for (const [label, key] of PHASES) {
    const cells = modes.map((m) => {
      const f = { p50: +pct(m.t[key], 0.5).toFixed(2), p95: +pct(m.t[key], 0.95).toFixed(2) };
      (figures[m.name] as Record<string, { p50: number; p95: number }>)[key] = f;
      return f;
    });
    const [ours, anchor] = cells as [{ p50: number; p95: number }, { p50: number; p95: number }];
    const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "-");
    out(
      `${label.padEnd(27)} ${cells.map((c) => `${c.p50.toFixed(2).padStart(8)} ${c.p95.toFixed(2).padStart(9)}    `).join("")}${ratio(ours.p50, anchor.p50).padStart(5)} ${ratio(ours.p95, anchor.p95).padStart(6)}`,
    );
  }
  return { steps: STEPS, executor: "executeAction (verified, settles)", settles: figures };
}

import puppeteer from "puppeteer-core";
import { CHROMIUM_ARGS, isExecutable } from "../../containers/browser/chromium-process.ts";
import { html, startOrigin } from "../helpers/origin.ts";
import { runCli, startServer, tempDir } from "../helpers/process.ts";

const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const pct = (s: number[], p: number) => [...s].sort((a, b) => a - b)[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;

/**
 * The headline figure of issue [2 of 6]: how fast a caller gets a remote browser. Against the real
 * `osprey serve` (PGlite, its warm pool), N sessions one after another: POST /browser (create),
 * puppeteer.connect on its cdp_url (connected), the first page loaded from a loopback origin, and
 * DELETE. Beside it, in the same run on the same machine, the anchor: a cold `puppeteer.launch` of
 * the same Chromium with the same flags, then the same page. Published peer figures (create to
 * connected, end to end): Browserbase 578 ms, Steel 972 ms.
 */
export async function sessionsBench(): Promise<void> {
  if (!isExecutable(CHROME)) {
    process.stdout.write(`no Chromium at ${CHROME}; set CHROME_PATH\n`);
    return;
  }
  const n = Number(process.env.BENCH_N ?? 50);
  const pool = process.env.BENCH_POOL ?? "2";
  const origin = await startOrigin({ "/": html(`<!doctype html><title>bench</title><p>${"text ".repeat(2000)}</p>`) });
  const data = tempDir("osprey-sessions-bench-");
  const env = {
    OSPREY_DATA_DIR: data.dir,
    OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${origin.port}`,
    OSPREY_LOG_LEVEL: "error",
    OSPREY_WORKER: "off",
    OSPREY_BROWSER_WARM_POOL: pool,
  };
  const created = await runCli(["keys", "create", "--plan", "pro", "--json"], env);
  const { key } = JSON.parse(created.stdout) as { key: string };
  const server = await startServer({ ...env, PORT: "0" });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const phases = {
    create: [] as number[],
    connect: [] as number[],
    ready: [] as number[],
    page: [] as number[],
    del: [] as number[],
  };
  const cold = { launch: [] as number[], page: [] as number[], close: [] as number[] };
  try {
    // Let the warm pool fill once, as a server that has been up for a moment has it.
    await new Promise((r) => setTimeout(r, 3_000));
    for (let i = 0; i < n + 3; i++) {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/browser`, { method: "POST", headers, body: "{}" });
      if (res.status !== 201) throw new Error(`POST /browser answered ${res.status}: ${await res.text()}`);
      const s = (await res.json()) as { session_id: string; cdp_url: string };
      const t1 = performance.now();
      const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_url, defaultViewport: null });
      const t2 = performance.now();
      const page = (await browser.pages())[0] ?? (await browser.newPage());
      await page.goto(`${origin.url}/`, { waitUntil: "load" });
      const t3 = performance.now();
      await fetch(`${server.url}/browser/${s.session_id}`, { method: "DELETE", headers });
      const t4 = performance.now();
      await browser.disconnect().catch(() => {});
      if (i >= 3) {
        phases.create.push(t1 - t0);
        phases.connect.push(t2 - t1);
        phases.ready.push(t2 - t0);
        phases.page.push(t3 - t2);
        phases.del.push(t4 - t3);
      }
      // The anchor, interleaved so both see the same machine.
      if (i >= 3 && i % 2 === 0) {
        const c0 = performance.now();
        const b = await puppeteer.launch({ executablePath: CHROME, headless: true, args: [...CHROMIUM_ARGS] });
        const c1 = performance.now();
        const p = (await b.pages())[0] ?? (await b.newPage());
        await p.goto(`${origin.url}/`, { waitUntil: "load" });
        const c2 = performance.now();
        await b.close();
        cold.launch.push(c1 - c0);
        cold.page.push(c2 - c1);
        cold.close.push(performance.now() - c2);
      }
    }
  } finally {
    await server.stop();
    await origin.close();
    data.cleanup();
  }
  const row = (name: string, s: number[]) =>
    `  ${name.padEnd(44)} p50 ${pct(s, 0.5).toFixed(1).padStart(7)} ms   p95 ${pct(s, 0.95).toFixed(1).padStart(7)} ms   (n=${s.length})\n`;
  process.stdout.write(`Osprey sessions (osprey serve, PGlite, warm pool ${pool}), one after another:\n`);
  process.stdout.write(row("POST /browser (create)", phases.create));
  process.stdout.write(row("puppeteer.connect(cdp_url)", phases.connect));
  process.stdout.write(row("create → CDP connected (target p50 ≤ 150)", phases.ready));
  process.stdout.write(row("first page loaded", phases.page));
  process.stdout.write(row("DELETE /browser/{id}", phases.del));
  process.stdout.write("Anchor, same run: cold puppeteer.launch of the same Chromium:\n");
  process.stdout.write(row("launch → connected", cold.launch));
  process.stdout.write(row("first page loaded", cold.page));
  process.stdout.write(row("browser.close()", cold.close));
  process.stdout.write(
    `Ratio create→connected (Osprey) / cold launch, p50: ${(pct(phases.ready, 0.5) / pct(cold.launch, 0.5)).toFixed(2)}\n` +
      "Published, end to end (not measured here): Browserbase 578 ms, Steel 972 ms.\n",
  );
}

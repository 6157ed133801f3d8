import { article, html, startOrigin } from "../helpers/origin.ts";
import { runCli, startServer, tempDir } from "../helpers/process.ts";

const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;

/**
 * Load on the real server (`osprey serve` as a process, embedded PGlite, the production middleware
 * stack): for each case, `concurrency` callers send requests back to back for `seconds`, and the
 * bench prints requests per second, latency percentiles and the status histogram (a 5xx under load
 * is a defect). The account's rate limits are lifted first, so the figures measure the server, not
 * its 429s. Issue 15 asks for these figures before and after the hardening: run the same file
 * against both trees in one sitting (the machine is shared and noisy; compare within a sitting).
 */
export async function loadBench(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} of a long article about load. `.repeat(8));
  // A page whose text only its script writes: the fetch pipeline renders it in Chromium.
  const app = `<html><head><title>App</title></head><body><div id="root"></div><script>document.getElementById("root").innerHTML = "<article><h1>App</h1><p>" + ${JSON.stringify(paragraphs[0])}.repeat(6) + "</p></article>";</script></body></html>`;
  const origin = await startOrigin({ "/article": html(article("Load", paragraphs)), "/app": html(app) });
  const data = tempDir("osprey-load-");
  const env = {
    OSPREY_DATA_DIR: data.dir,
    OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${origin.port}`,
    OSPREY_LOG_LEVEL: "error",
    OSPREY_WORKER: "off",
  };
  const created = await runCli(["keys", "create", "--plan", "pro", "--json"], env);
  const { key, account_id: account } = JSON.parse(created.stdout) as { key: string; account_id: string };
  await runCli(["accounts", "set-limits", account, "--search-rpm", "1000000", "--fetch-upm", "1000000"], env);
  const server = await startServer({ ...env, PORT: "0" });
  const headers = { "x-api-key": key, "content-type": "application/json" };
  let n = 0;
  const cases: { name: string; concurrency: number; send: () => Promise<Response> }[] = [
    { name: "GET /v1/account", concurrency: 32, send: () => fetch(`${server.url}/v1/account`, { headers }) },
    {
      name: "GET /search (local index)",
      concurrency: 16,
      send: () => fetch(`${server.url}/search?query=${encodeURIComponent(`load article paragraph ${n++ % 50}`)}`, { headers }),
    },
    {
      name: "POST /fetch (1 URL, cache miss)",
      concurrency: 16,
      send: () =>
        fetch(`${server.url}/fetch`, {
          method: "POST",
          headers,
          body: JSON.stringify({ urls: [`${origin.url}/article?n=${n++}`], format: "markdown" }),
        }),
    },
    {
      name: "POST /fetch (1 URL rendered in Chromium)",
      concurrency: 4,
      send: () =>
        fetch(`${server.url}/fetch`, {
          method: "POST",
          headers,
          body: JSON.stringify({ urls: [`${origin.url}/app?n=${n++}`], format: "markdown" }),
        }),
    },
    {
      name: "POST /fetch (invalid body, 400)",
      concurrency: 32,
      send: () => fetch(`${server.url}/fetch`, { method: "POST", headers, body: JSON.stringify({ urls: ["\u0000"] }) }),
    },
  ];
  try {
    for (const c of cases) {
      const times: number[] = [];
      const statuses = new Map<number | string, number>();
      const end = performance.now() + seconds * 1000;
      const worker = async () => {
        while (performance.now() < end) {
          const t = performance.now();
          let status: number | string;
          try {
            const res = await c.send();
            await res.arrayBuffer();
            status = res.status;
          } catch (err) {
            status = (err as { cause?: { code?: string } }).cause?.code ?? "network error";
          }
          times.push(performance.now() - t);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: c.concurrency }, worker));
      const elapsed = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      const histogram = [...statuses].map(([s, k]) => `${s}×${k}`).join(" ");
      process.stdout.write(
        `${c.name.padEnd(42)} c=${String(c.concurrency).padEnd(3)} ${(times.length / elapsed).toFixed(0).padStart(5)} req/s  ` +
          `p50=${pct(times, 0.5).toFixed(1)} ms  p95=${pct(times, 0.95).toFixed(1)} ms  p99=${pct(times, 0.99).toFixed(1)} ms  ${histogram}\n`,
      );
    }
  } finally {
    await server.stop();
    await origin.close();
    data.cleanup();
  }
}

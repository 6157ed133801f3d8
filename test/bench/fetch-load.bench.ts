import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { openDatabase } from "../../functions/db/open-database.ts";
import { wrapPglite } from "../../functions/db/pglite-database.ts";
import { createExtractorPool, inlineExtractor } from "../../functions/extract/pool.ts";
import { fileBlobStore } from "../../functions/storage/blob-store.ts";
import { createTestContext } from "../helpers/app.ts";
import { startOrigin } from "../helpers/origin.ts";

const AEB_HTML = fileURLToPath(new URL("../../../shared/bench/extraction/scrapinghub-aeb/html/", import.meta.url));
const pct = (s: number[], p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0;

/**
 * Event-loop delay while 10-URL batches of the ten largest benchmark pages are fetched and
 * extracted, with extraction in worker threads (the server's setup) and, for contrast, inline.
 * A probe request (GET /healthz) runs alongside to show what other callers feel.
 */
export async function fetchLoadBench(): Promise<void> {
  const files = readdirSync(AEB_HTML)
    .map((f) => ({ f, size: statSync(path.join(AEB_HTML, f)).size }))
    .sort((a, b) => b.size - a.size)
    .slice(0, 10);
  const pages = files.map(({ f }) => gunzipSync(readFileSync(path.join(AEB_HTML, f))).toString("utf8"));
  process.stdout.write(`pages: ${pages.map((p) => `${Math.round(p.length / 1024)} KiB`).join(", ")}\n`);
  const origin = await startOrigin();
  for (const [i, body] of pages.entries()) {
    origin.route(`/p${i}`, (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(body);
    });
  }
  // BENCH_DATABASE_URL=postgres://… measures with Postgres out of process (as deployed); the
  // default is the embedded PGlite, whose queries run on the server's own thread.
  const db = process.env.BENCH_DATABASE_URL
    ? await openDatabase({ driver: "pg", url: process.env.BENCH_DATABASE_URL })
    : wrapPglite(await PGlite.create(), "bench");
  await db.migrate();
  process.stdout.write(`database: ${db.description}\n`);
  const blobDir = mkdtempSync(path.join(tmpdir(), "osprey-bench-blobs-"));

  for (const mode of ["worker pool", "inline"] as const) {
    const pool = mode === "worker pool" ? createExtractorPool() : null;
    const ctx = createTestContext(db.db, {
      fetch: {
        extractor: pool ?? inlineExtractor,
        blobs: fileBlobStore(blobDir),
        config: { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] },
      },
    });
    const { key } = await ctx.newKey();
    const body = JSON.stringify({ urls: pages.map((_, i) => `${origin.url}/p${i}`), ttl: 0 });
    const batch = async () => {
      const res = await ctx.call(key, "/fetch", { method: "POST", headers: { "content-type": "application/json" }, body });
      const json = (await res.json()) as { results: unknown[]; errors: unknown[] };
      if (json.results.length !== pages.length) throw new Error(`batch: ${JSON.stringify(json.errors).slice(0, 300)}`);
    };
    await batch(); // warm-up
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    const probes: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        const t = performance.now();
        await (await ctx.app.request("/healthz")).arrayBuffer();
        probes.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    histogram.enable();
    const batches: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await batch();
      batches.push(performance.now() - t);
    }
    histogram.disable();
    running = false;
    await probe;
    probes.sort((a, b) => a - b);
    process.stdout.write(
      `${mode.padEnd(12)} batch of 10: mean ${(batches.reduce((a, b) => a + b, 0) / batches.length).toFixed(0)} ms | ` +
        `event-loop delay p50 ${(histogram.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms | ` +
        `/healthz probe p50 ${pct(probes, 0.5).toFixed(1)} ms, p99 ${pct(probes, 0.99).toFixed(1)} ms, max ${(probes.at(-1) ?? 0).toFixed(1)} ms (n=${probes.length})\n`,
    );
    await pool?.close();
  }
  await db.close();
  await origin.close();
  rmSync(blobDir, { recursive: true, force: true });
}

import { PGlite } from "@electric-sql/pglite";
import { wrapPglite } from "../../functions/db/pglite-database.ts";
import { createTestContext } from "../helpers/app.ts";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/**
 * Per-request overhead of the foundation: request id, authentication (one indexed read by key
 * hash), routing and error rendering, in process on the embedded database.
 */
export async function apiBench(): Promise<void> {
  const db = wrapPglite(await PGlite.create(), "bench");
  await db.migrate();
  const ctx = createTestContext(db.db);
  const { key } = await ctx.newKey();
  const cases: [string, () => Promise<Response>][] = [
    ["GET /v1/account (authenticated)", () => ctx.call(key, "/v1/account")],
    ["GET /v1/account (unknown key, 401)", () => ctx.call("osk_unknown0000000000000000000000000000000000", "/v1/account")],
    ["GET /v1/account (no key, 401)", async () => ctx.app.request("/v1/account")],
  ];
  const n = 2000;
  for (const [name, run] of cases) {
    for (let i = 0; i < 200; i++) await run(); // warm-up
    const times: number[] = [];
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await (await run()).arrayBuffer();
      times.push(performance.now() - t);
    }
    const total = performance.now() - start;
    times.sort((a, b) => a - b);
    process.stdout.write(
      `${name.padEnd(40)} n=${n}  p50=${percentile(times, 0.5).toFixed(3)} ms  p95=${percentile(times, 0.95).toFixed(3)} ms  ` +
        `p99=${percentile(times, 0.99).toFixed(3)} ms  ${(n / (total / 1000)).toFixed(0)} req/s\n`,
    );
  }
  await db.close();
}

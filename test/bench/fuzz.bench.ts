import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { wrapPglite } from "../../functions/db/pglite-database.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { DOCUMENTS } from "../../functions/openapi/write-openapi.ts";
import { type FuzzRequest, generateRequests } from "../helpers/fuzz.ts";
import { prng } from "../helpers/fuzz-inputs.ts";
import { operationsOf, undocumentedOperations } from "../helpers/fuzz-operations.ts";
import { betweenRequests, createFuzzContext, describeRequest, fuzzKey, guardNetwork, runFuzz } from "../helpers/fuzz-run.ts";

const OPENAPI_DIR = fileURLToPath(new URL("../../schema/openapi/", import.meta.url));

const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) ? v : fallback;
};

/**
 * Hostile requests against every operation of every surface, in process on PGlite (the figure the
 * hardening issue reports: requests sent, 5xx = 0). Options: `--seed N`, `--per-op N`. Exits 1
 * on any 5xx, timeout or exception, and prints each with the request that caused it.
 */
export async function fuzzBench(): Promise<void> {
  const seed = option("--seed", 1);
  const perOperation = option("--per-op", 160);
  const guard = guardNetwork();
  const db = wrapPglite(await PGlite.create(), "fuzz");
  await db.migrate();
  // Server errors are logged (with their cause) so that each 5xx below can be traced.
  const logLines: string[] = [];
  const logger = createLogger("error", (line) => logLines.push(line));
  const ctx = createFuzzContext(db.db, logger);
  const key = await fuzzKey(ctx);

  // The documents as served, and as committed under schema/openapi/ (both, in case they differ).
  const served = await Promise.all(Object.values(DOCUMENTS).map(async (p) => (await ctx.app.request(p)).json()));
  const committed = readdirSync(OPENAPI_DIR)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(`${OPENAPI_DIR}${f}`, "utf8")));
  const operations = [...operationsOf([...served, ...committed]), ...undocumentedOperations()];

  const rng = prng(seed);
  const requests: FuzzRequest[] = operations.flatMap((op) => generateRequests(op, rng, { key, perOperation, big: true }));
  process.stdout.write(`seed ${seed}: ${operations.length} operations, ${requests.length} requests\n`);

  const started = performance.now();
  const between = betweenRequests(ctx);
  const report = await runFuzz(ctx.app, requests, {
    // Rate limits answer 429 before validation; betweenRequests keeps them (and the open-session cap) from hiding it.
    between: async (i) => {
      await between(i);
      logLines.length = 0;
    },
    onFailure: (f) => {
      process.stdout.write(`\n${f.status}: ${describeRequest(f.request)}\n  answer: ${f.detail}\n`);
      for (const line of logLines.splice(0)) process.stdout.write(`  log: ${line.slice(0, 1500)}`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  guard.restore();
  await db.close();

  const histogram = Object.entries(report.histogram)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join("  ");
  process.stdout.write(`\nrequests sent: ${report.sent} in ${seconds.toFixed(1)} s\nstatus histogram: ${histogram}\n`);
  process.stdout.write("statuses per operation:\n");
  for (const [op, statuses] of Object.entries(report.byOperation)) {
    const line = Object.entries(statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${n}`)
      .join("  ");
    process.stdout.write(`  ${op.padEnd(44)} ${line}\n`);
  }
  process.stdout.write(`5xx/timeouts/exceptions: ${report.failures.length}\n`);
  process.stdout.write(`error bodies not in the spec 7.1 shape: ${report.malformed.length}\n`);
  for (const m of report.malformed.slice(0, 20))
    process.stdout.write(`  ${m.status}: ${describeRequest(m.request)}\n    ${m.detail}\n`);
  process.stdout.write(`outbound connections refused by the guard: ${guard.blocked.length}\n`);
  if (report.failures.length > 0 || report.malformed.length > 0 || guard.blocked.length > 0) process.exitCode = 1;
}

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { streamHandle } from "hono/aws-lambda";
import pg from "pg";
import { bundleSurface, SURFACES } from "../../functions/build/build-edge.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { buildAgentSurface } from "../../functions/edge/agent-surface.ts";
import { edgeApp } from "../../functions/edge/edge-root.ts";
import { createTestContext } from "../helpers/app.ts";
import { functionUrlEvent, installLambdaRuntime, invoke } from "../helpers/lambda.ts";
import { startNeonProxy } from "../helpers/neon-proxy.ts";

/**
 * The edge functions: each bundle's size (target ≤ 1.5 MB minified for agent, fetch and search),
 * the cold start of each bundled handler in a fresh Node process (import + first request, target
 * ≤ 300 ms), and the warm cost of one authenticated request on the Lambda handler against the same
 * request on the single-machine app (createLocalApp). Postgres: --db URL or TEST_DATABASE_URL
 * (without one, only sizes and the /healthz cold start are measured).
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;

function dbArg(): string {
  const i = process.argv.indexOf("--db");
  return (i >= 0 ? process.argv[i + 1] : undefined) ?? process.env.TEST_DATABASE_URL ?? "";
}

/** A scratch database on the server `adminUrl` names, dropped afterwards. */
async function scratchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `osprey_edge_bench_${randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

async function timed(n: number, run: () => Promise<unknown>): Promise<string> {
  for (let i = 0; i < 100; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return `p50=${percentile(times, 0.5).toFixed(3)} ms  p95=${percentile(times, 0.95).toFixed(3)} ms`;
}

export async function edgeBench(): Promise<void> {
  const url = dbArg();
  const database = url ? await scratchDatabase(url) : null;
  const proxy = database ? await startNeonProxy() : null;
  try {
    process.stdout.write("bundle sizes (minified; cold start loads the first figure)\n");
    const files: Record<string, string> = {};
    for (const surface of SURFACES) {
      // Into dist/functions, as `npm run build` does: the external @aws-sdk/* resolve from node_modules there.
      const r = await bundleSurface(surface);
      files[surface] = r.file;
      const lazy = r.lazyBytes > 0 ? ` (+ ${mb(r.lazyBytes)} on first use)` : "";
      process.stdout.write(
        `  ${surface.padEnd(8)} ${mb(r.bytes)}${lazy}${r.forbidden.length ? `  FORBIDDEN: ${r.forbidden.join(", ")}` : ""}\n`,
      );
    }

    let key = "";
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", OSPREY_LOG_LEVEL: "error" };
    if (database && proxy) {
      const db = await openDatabase({ driver: "pg", url: database.url });
      await db.migrate();
      key = (await createTestContext(db.db).newKey()).key;
      await db.close();
      Object.assign(env, { DATABASE_URL: database.url, OSPREY_NEON_WS_PROXY: proxy.url });
    } else {
      env.DATABASE_URL = "postgres://nobody@127.0.0.1:1/none";
    }

    const RUNS = 5;
    process.stdout.write(
      `cold start, fresh node process per run (median of ${RUNS}; authenticated request: first query on a new connection)\n`,
    );
    // With a database, each surface twice in alternation: Neon's driver (through the local WebSocket
    // proxy) and pg over TCP (RDS's driver, OSPREY_DB_DRIVER=pg, loaded from its lazy chunk).
    const drivers: Array<{ label: string; env: Record<string, string> }> =
      database && proxy
        ? [
            { label: "neon", env },
            {
              label: "pg",
              env: { PATH: env.PATH ?? "", OSPREY_LOG_LEVEL: "error", DATABASE_URL: database.url, OSPREY_DB_DRIVER: "pg" },
            },
          ]
        : [{ label: "neon", env }];
    type Sample = { importMs: number; firstMs: number; authed: { ms: number; status: number } | null; processMs: number };
    for (const surface of SURFACES) {
      const samples = new Map<string, Sample[]>(drivers.map((d) => [d.label, []]));
      for (let i = 0; i < RUNS; i++) {
        for (const d of drivers) {
          const args = [
            "--experimental-strip-types",
            "--disable-warning=ExperimentalWarning",
            path.join(ROOT, "test/bench/edge-cold.ts"),
            files[surface] ?? "",
          ];
          if (key && surface !== "browser") args.push(key);
          // Asynchronous: the Neon proxy the child connects through runs in this process.
          const { stdout } = await run(process.execPath, args, { env: d.env, encoding: "utf8" });
          samples.get(d.label)?.push(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}"));
        }
      }
      for (const d of drivers) {
        const got = samples.get(d.label) ?? [];
        const med = (f: (s: Sample) => number) => {
          const v = got.map(f).sort((a, b) => a - b);
          return v[Math.floor(v.length / 2)] ?? 0;
        };
        const authed = got[0]?.authed
          ? `  then authenticated ${med((s) => s.authed?.ms ?? 0).toFixed(0)} ms (HTTP ${got[0].authed.status})`
          : "";
        const tag = drivers.length > 1 ? ` ${d.label.padEnd(4)}` : "";
        process.stdout.write(
          `  ${surface.padEnd(8)}${tag} import ${med((s) => s.importMs).toFixed(0)} ms + first request (/healthz) ${med((s) => s.firstMs).toFixed(0)} ms = ${med((s) => s.importMs + s.firstMs).toFixed(0)} ms${authed}\n`,
        );
      }
    }

    if (!database || !proxy) {
      process.stdout.write("warm overhead: skipped (no Postgres: pass --db or set TEST_DATABASE_URL)\n");
      return;
    }
    installLambdaRuntime();
    const edge = edgeApp(
      { DATABASE_URL: database.url, OSPREY_NEON_WS_PROXY: proxy.url, OSPREY_LOG_LEVEL: "error" },
      buildAgentSurface,
    );
    const handler = streamHandle(edge.app);
    const pgDb = await openDatabase({ driver: "pg", url: database.url });
    const neonDb = await openDatabase({ driver: "neon", url: database.url, wsProxy: proxy.url });
    const localPg = createTestContext(pgDb.db);
    const localNeon = createTestContext(neonDb.db);
    const n = 1000;
    process.stdout.write(`warm GET /v1/account, authenticated, n=${n} sequential (same Postgres)\n`);
    process.stdout.write(
      `  local app (createLocalApp), pg driver      ${await timed(n, async () => (await localPg.call(key, "/v1/account")).arrayBuffer())}\n`,
    );
    process.stdout.write(
      `  local app (createLocalApp), neon driver    ${await timed(n, async () => (await localNeon.call(key, "/v1/account")).arrayBuffer())}\n`,
    );
    process.stdout.write(
      `  edge handler (function-URL event, stream)  ${await timed(n, () => invoke(handler, functionUrlEvent("GET", "/v1/account", { headers: { "x-api-key": key } })))}\n`,
    );
    process.stdout.write(
      `  edge app.fetch (no Lambda adapter)         ${await timed(n, async () => (await edge.app.request("/v1/account", { headers: { "x-api-key": key } })).arrayBuffer())}\n`,
    );
    const edgePg = edgeApp({ DATABASE_URL: database.url, OSPREY_DB_DRIVER: "pg", OSPREY_LOG_LEVEL: "error" }, buildAgentSurface);
    const handlerPg = streamHandle(edgePg.app);
    process.stdout.write(
      `  edge handler over pg (OSPREY_DB_DRIVER=pg)  ${await timed(n, () => invoke(handlerPg, functionUrlEvent("GET", "/v1/account", { headers: { "x-api-key": key } })))}\n`,
    );
    await edgePg.close();
    await edge.close();
    await pgDb.close();
    await neonDb.close();
  } finally {
    await proxy?.close();
    await database?.drop();
  }
}

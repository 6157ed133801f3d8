/**
 * `npm run bench -- <name>`: runs one benchmark (or all, with no name) and prints its figures.
 * Benchmarks measure; they never assert. Data sets are read from ../shared/bench, never copied.
 */
import { apiBench } from "./api.bench.ts";

const BENCHES: Record<string, { describe: string; run: () => Promise<void> }> = {
  agent: {
    describe: "agent page-state size against Browser Use on real pages, and per-step overhead without the model",
    run: () => import("./agent.bench.ts").then((m) => m.agentBench()),
  },
  api: { describe: "per-request overhead of auth, routing and errors (in process, PGlite)", run: apiBench },
  extraction: { describe: "extraction quality", run: () => import("./extraction.bench.ts").then((m) => m.extractionBench()) },
  search: {
    describe: "local index: SciFact nDCG@10, query latency and import docs/s; 200k generated documents",
    run: () => import("./search.bench.ts").then((m) => m.searchBench()),
  },
  fuzz: {
    describe: "hostile requests to every operation of every surface (in process, PGlite); exits 1 on any 5xx",
    run: () => import("./fuzz.bench.ts").then((m) => m.fuzzBench()),
  },
  load: {
    describe: "requests per second, latency and statuses under concurrent load on the real server (osprey serve, PGlite)",
    run: () => import("./load.bench.ts").then((m) => m.loadBench()),
  },
  egress: {
    describe: "page loads through the browser egress proxy beside the same Chromium without one; bytes counted vs served",
    run: () => import("./egress.bench.ts").then((m) => m.egressBench()),
  },
  edge: {
    describe: "edge bundles: size, cold start per handler in a fresh process, warm overhead vs the local app (Postgres via --db)",
    run: () => import("./edge.bench.ts").then((m) => m.edgeBench()),
  },
  sessions: {
    describe:
      "remote browser sessions: create → CDP connected → first page → DELETE on the real server, beside a cold puppeteer.launch",
    run: () => import("./sessions.bench.ts").then((m) => m.sessionsBench()),
  },
  scaler: {
    describe:
      "browser container scaling, simulated: burst, trickle and a daily curve; fast path + target tracking vs target tracking alone vs RunTask, over the ECS API double",
    run: () => import("./scaler.bench.ts").then((m) => m.scalerBench()),
  },
  profiles: {
    describe:
      "Browser Context Profiles: load 50 domains / 2,000 cookies / 50 origins of localStorage into a fresh context and read it back, beside an empty context",
    run: () => import("./profiles.bench.ts").then((m) => m.profilesBench()),
  },
  cli: {
    describe:
      "CLI start: --help and keys list with no server (PGlite) and beside one (admin socket), and a first start, beside node -e 0",
    run: () => import("./cli.bench.ts").then((m) => m.cliBench()),
  },
  "front-door": {
    describe: "the browser session front door's warm path (key + probe + forward) beside a direct request to the origin",
    run: () => import("./front-door.bench.ts").then((m) => m.frontDoorBench()),
  },
  "fetch-load": {
    describe: "event-loop delay while 10-URL batches of the largest benchmark pages are fetched",
    run: () => import("./fetch-load.bench.ts").then((m) => m.fetchLoadBench()),
  },
};

// Options that take a value (`--db postgres://…`): their value is not a benchmark name.
const VALUED = new Set([
  "--seed",
  "--per-op",
  "--db",
  "--pglite-dir",
  "--only",
  "--docs",
  "--k1",
  "--b",
  "--title-weight",
  "--max-postings",
  "--regularisation",
  "--rerank",
  "--runs",
  "--baseline",
]);
const names = process.argv.slice(2).filter((a, i, all) => !a.startsWith("-") && !VALUED.has(all[i - 1] ?? ""));
const unknown = names.filter((n) => !(n in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(", ")}. Available:\n`);
  for (const [name, b] of Object.entries(BENCHES)) process.stderr.write(`  ${name.padEnd(12)} ${b.describe}\n`);
  process.exit(2);
}
for (const name of names.length ? names : Object.keys(BENCHES)) {
  process.stdout.write(`\n# ${name}: ${BENCHES[name]?.describe}\n`);
  await BENCHES[name]?.run();
}

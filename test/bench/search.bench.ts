import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { importJsonlFile } from "../../functions/search/local/import-jsonl.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { DEFAULT_RANKING } from "../../functions/search/local/prepare.ts";
import { DEFAULT_BM25 } from "../../functions/search/local/ranking.ts";
import { DEFAULT_REGULARISATION } from "../../functions/search/local/regularise.ts";
import { DEFAULT_RERANK } from "../../functions/search/local/rerank.ts";
import type { DomainType } from "../../schema/search.ts";
import { makeQueries, SITES, writeCorpus } from "./search-corpus.ts";
import { type BenchTarget, countDocuments, type DbReuse, memoryLine, openBenchDb } from "./search-db.ts";
import { pgFullTextAnchor, type SearchFn, startSearchServer } from "./search-http.ts";

const DATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench/search/scifact");
const out = (s: string) => process.stdout.write(`${s}\n`);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0;

/** trec_eval ndcg_cut.10: gain = label, discount log2(rank + 1), ideal from all judged-relevant docs. */
export function ndcgAt10(ranked: string[], labels: Map<string, number>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, i) => {
    dcg += (labels.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...labels.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  ideal.slice(0, 10).forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  return idcg > 0 ? dcg / idcg : 0;
}

interface Timed {
  urls: string[][];
  ms: number[];
  /** Queries that failed (timed like the rest; their results count as empty). */
  failures: number;
  firstFailure?: string;
}

/**
 * Each query through every one of `fns` in turn (so the machine's noise falls on all of them
 * alike), after a warm-up of 20 queries each. Ours over HTTP goes first: the in-process call after
 * it finds the df of the query's candidates already kept (regularise.ts), so it shows less than the
 * HTTP surface's own cost; the HTTP figure pays for them.
 */
async function timeQueries(
  fns: SearchFn[],
  queries: string[],
  type: DomainType,
  filters: (i: number) => Record<string, string> = () => ({}),
): Promise<Timed[]> {
  for (const [i, q] of queries.slice(0, 20).entries()) for (const fn of fns) await fn(q, type, filters(i)).catch(() => []);
  const timed: Timed[] = fns.map(() => ({ urls: [], ms: [], failures: 0 }));
  for (const [i, q] of queries.entries()) {
    for (const [j, fn] of fns.entries()) {
      const t = timed[j] as Timed;
      const t0 = performance.now();
      const urls = await fn(q, type, filters(i)).catch((err: unknown) => {
        t.failures++;
        t.firstFailure ??= err instanceof Error ? err.message : String(err);
        return [] as string[];
      });
      t.ms.push(performance.now() - t0);
      t.urls.push(urls);
    }
  }
  return timed;
}

function latencyLine(ms: number[], timed: (Timed | undefined)[] = []): string {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const failures = timed.reduce((n, t) => n + (t?.failures ?? 0), 0);
  const first = timed.find((t) => t?.firstFailure)?.firstFailure;
  const failed = failures > 0 ? `; ${failures} FAILED, first: ${first?.slice(0, 200)}` : "";
  return `p50 ${pct(s, 0.5).toFixed(1)} ms, p95 ${pct(s, 0.95).toFixed(1)} ms, p99 ${pct(s, 0.99).toFixed(1)} ms, mean ${mean.toFixed(1)} ms (${s.length} queries${failed})`;
}

const p95 = (ms: number[]) =>
  pct(
    [...ms].sort((a, b) => a - b),
    0.95,
  );

type Opts = { k1: number; b: number; titleWeight: number; maxPostingsPerTerm: number; regularisation: number; rerank: number };

async function scifact(target: BenchTarget, o: Opts, tmp: string): Promise<void> {
  const jsonl = join(tmp, "scifact.jsonl");
  const docs = readFileSync(join(DATA, "corpus.jsonl"), "utf8").split("\n").filter(Boolean);
  writeFileSync(
    jsonl,
    docs
      .map((l) => {
        const d = JSON.parse(l) as { _id: string; title: string; text: string };
        return JSON.stringify({
          url: `https://scifact.example/doc/${d._id}`,
          title: d.title,
          text: d.text,
          type: "research_paper",
        });
      })
      .join("\n"),
  );
  const where: BenchTarget = target.kind === "pglite-dir" ? { kind: "pglite-dir", dir: join(tmp, "scifact-data") } : target;
  const { db, drop } = await openBenchDb(where);
  try {
    const index = createLocalIndex({
      db: db.db,
      bm25: { k1: o.k1, b: o.b, maxPostingsPerTerm: o.maxPostingsPerTerm },
      ranking: { titleWeight: o.titleWeight },
      regularisation: { weight: o.regularisation },
      rerank: { weight: o.rerank },
    });
    const imp = await importJsonlFile(index.writer, jsonl);
    const m0 = performance.now();
    await index.maintain();
    const maintainS = (performance.now() - m0) / 1000;
    const queries = readFileSync(join(DATA, "queries-train.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { _id: string; text: string });
    const qrels = new Map<string, Map<string, number>>();
    for (const line of readFileSync(join(DATA, "qrels/train.tsv"), "utf8").split("\n").slice(1)) {
      const [qid, docId, score] = line.split("\t");
      if (!qid || !docId) continue;
      const m = qrels.get(qid) ?? new Map<string, number>();
      m.set(`https://scifact.example/doc/${docId}`, Number(score));
      qrels.set(qid, m);
    }
    const judged = queries.filter((q) => qrels.has(q._id));
    const anchor = await pgFullTextAnchor(db.db);
    const server = await startSearchServer(db.db, index.provider);
    try {
      const [ours, direct, fts] = await timeQueries(
        [server.http, server.direct, anchor.search],
        judged.map((q) => q.text),
        "research_paper",
      );
      const ndcg = (t: Timed | undefined, keep: (id: number) => boolean) => {
        const kept = judged.map((q, i) => ({ q, urls: t?.urls[i] ?? [] })).filter(({ q }) => keep(Number(q._id)));
        return kept.reduce((sum, { q, urls }) => sum + ndcgAt10(urls, qrels.get(q._id) ?? new Map()), 0) / kept.length;
      };
      const halves = (t: Timed | undefined) =>
        `${ndcg(t, () => true).toFixed(4)} (odd ids ${ndcg(t, (id) => id % 2 === 1).toFixed(4)}, even ids ${ndcg(t, (id) => id % 2 === 0).toFixed(4)})`;
      out(
        `\n## SciFact train (${db.driver}; k1 ${o.k1}, b ${o.b}, title weight ${o.titleWeight}, max postings/term ${o.maxPostingsPerTerm}, regularisation ${o.regularisation}, rerank ${o.rerank})`,
      );
      out(
        `import: ${imp.inserted} documents in ${(imp.elapsedMs / 1000).toFixed(1)} s = ${imp.docsPerSecond.toFixed(0)} docs/s (rejected ${imp.rejected}); vacuum analyze ${maintainS.toFixed(1)} s`,
      );
      out(`nDCG@10 over ${judged.length} queries: ${halves(ours)} (Lucene BM25 as the data set measured it: 0.696; goal 0.73)`);
      out(`  anchor, Postgres full-text search (ts_rank): ${halves(fts)}`);
      out(`latency, GET /search over HTTP (loopback): ${latencyLine(ours?.ms ?? [], [ours])}`);
      out(`latency, the local index without HTTP (after it: its df kept): ${latencyLine(direct?.ms ?? [], [direct])}`);
      out(
        `latency, anchor (Postgres FTS, GIN + ts_rank; index built in ${(anchor.buildMs / 1000).toFixed(1)} s): ${latencyLine(fts?.ms ?? [], [fts])}`,
      );
      out(`p95 ratio ours over HTTP / anchor: ${(p95(ours?.ms ?? []) / p95(fts?.ms ?? [])).toFixed(2)}`);
    } finally {
      await server.close();
    }
  } finally {
    await drop();
  }
}

async function generated(target: BenchTarget, count: number, o: Opts, tmp: string, reuse: DbReuse): Promise<void> {
  const jsonl = join(tmp, "generated.jsonl");
  const words = join(DATA, "corpus.jsonl");
  if (reuse.reuse && target.kind === "memory") throw new Error("--reuse-db needs --db (a Postgres server) or --pglite-dir");
  const written = reuse.reuse ? null : await writeCorpus(jsonl, count, words);
  const { db, name, drop } = await openBenchDb(target, reuse);
  const dataDir = target.kind === "pglite-dir" ? name : null;
  const corpus = written ?? { source: `reused database ${name}` };
  try {
    const index = createLocalIndex({
      db: db.db,
      bm25: { k1: o.k1, b: o.b, maxPostingsPerTerm: o.maxPostingsPerTerm },
      ranking: { titleWeight: o.titleWeight },
      regularisation: { weight: o.regularisation },
      rerank: { weight: o.rerank },
    });
    let next = 20_000;
    const imp = reuse.reuse
      ? null
      : await importJsonlFile(index.writer, jsonl, {
          onProgress: (p) => {
            if (p.lines >= next) {
              process.stderr.write(
                `  ${p.lines} documents, ${((p.lines * 1000) / p.elapsedMs).toFixed(0)} docs/s; ${memoryLine(db, null)}\n`,
              );
              next += 20_000;
            }
          },
        });
    const m0 = performance.now();
    if (imp) await index.maintain();
    const maintainS = (performance.now() - m0) / 1000;
    const docCount = imp?.inserted ?? (await countDocuments(db));
    const afterImport = memoryLine(db, dataDir);
    const anchor = await pgFullTextAnchor(db.db);
    const server = await startSearchServer(db.db, index.provider);
    try {
      const queries = makeQueries(200, words);
      const fns = [server.http, server.direct];
      const [plain, plainDirect, fts] = await timeQueries([...fns, anchor.search], queries, "web");
      // Every filter the API has: one site of 997 (about 0.1% of the index), the documents of the
      // last two years (about 12%), the news slice (10%), research papers from 2020 on (2%), and a
      // language that ranks (5% of the documents are German) without filtering.
      const cases: [string, DomainType, (i: number) => Record<string, string>][] = [
        ["include_domains (one site of 997)", "web", (i) => ({ include_domains: `site${(i * 7) % SITES}.example` })],
        ["after_date (about 12% of documents)", "web", () => ({ after_date: "2024-01-01" })],
        ["domain_type=news (10%)", "news", () => ({})],
        ["research_paper, pub_year_min 2020 (2%)", "research_paper", () => ({ pub_year_min: "2020" })],
        ["language=de (ranks, 5% German)", "web", () => ({ language: "de" })],
      ];
      const filtered: [string, Timed[]][] = [];
      for (const [name, type, filters] of cases) filtered.push([name, await timeQueries(fns, queries, type, filters)]);
      out(
        `\n## Generated corpus (${db.driver}; ${docCount} documents; ${corpus.source}, Zipfian; log-normal lengths, median 150 words; max postings/term ${o.maxPostingsPerTerm})`,
      );
      out(
        imp
          ? `import: ${imp.inserted} documents in ${(imp.elapsedMs / 1000).toFixed(1)} s = ${imp.docsPerSecond.toFixed(0)} docs/s; vacuum analyze ${maintainS.toFixed(1)} s; anchor's GIN index built in ${(anchor.buildMs / 1000).toFixed(1)} s`
          : `import: none (the database was reused); anchor's GIN index built in ${(anchor.buildMs / 1000).toFixed(1)} s`,
      );
      out(`memory ${imp ? "after the import" : "once open"}: ${afterImport}; after the queries: ${memoryLine(db, dataDir)}`);
      out(`unfiltered, GET /search over HTTP: ${latencyLine(plain?.ms ?? [], [plain])}`);
      out(`unfiltered, without HTTP:          ${latencyLine(plainDirect?.ms ?? [], [plainDirect])}`);
      out(`unfiltered, anchor (Postgres FTS): ${latencyLine(fts?.ms ?? [], [fts])}`);
      out(`p95 ratio ours over HTTP / anchor: ${(p95(plain?.ms ?? []) / p95(fts?.ms ?? [])).toFixed(2)}`);
      for (const [name, [http, direct]] of filtered) {
        out(`${name}, over HTTP: ${latencyLine(http?.ms ?? [], [http])}`);
        out(`${name}, without HTTP: ${latencyLine(direct?.ms ?? [], [direct])}`);
      }
      const allTimed = [plain, ...filtered.map(([, [http]]) => http)];
      const all = allTimed.flatMap((t) => t?.ms ?? []);
      out(`all ${all.length} queries over HTTP, filtered included: ${latencyLine(all, allTimed)}`);
    } finally {
      await server.close();
    }
  } finally {
    await drop();
  }
}

export async function searchBench(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: false,
    options: {
      db: { type: "string" },
      only: { type: "string" },
      docs: { type: "string" },
      k1: { type: "string" },
      b: { type: "string" },
      "title-weight": { type: "string" },
      "max-postings": { type: "string" },
      regularisation: { type: "string" },
      rerank: { type: "string" },
      "keep-db": { type: "boolean" },
      "reuse-db": { type: "string" },
      "pglite-dir": { type: "string" },
    },
  });
  const dbUrl = (values.db as string | undefined) || process.env.SEARCH_BENCH_DATABASE_URL || undefined;
  const pgliteDir = values["pglite-dir"];
  if (pgliteDir === true) throw new Error("--pglite-dir needs a path");
  if (pgliteDir && values.db) throw new Error("--pglite-dir and --db name two databases: give one");
  const target: BenchTarget = pgliteDir
    ? { kind: "pglite-dir", dir: pgliteDir }
    : dbUrl
      ? { kind: "pg", url: dbUrl }
      : { kind: "memory" };
  // A value that is another option (`--reuse-db --regularisation 0` reads "--regularisation" as the
  // database's name) or no number is a mistake, not a setting.
  for (const [name, v] of Object.entries(values))
    if (typeof v === "string" && v.startsWith("--"))
      throw new Error(`--${name} took the option ${v} as its value: write --${name}=VALUE, or put --${name} last`);
  const num = (name: string, fallback: number, min: number, max: number): number => {
    const raw = values[name];
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} takes a number from ${min} to ${max}, not ${raw}`);
    return n;
  };
  const o: Opts = {
    k1: num("k1", 0.9, 0, 10),
    b: num("b", 0.4, 0, 1),
    titleWeight: num("title-weight", DEFAULT_RANKING.titleWeight, 0, 100),
    maxPostingsPerTerm: num("max-postings", DEFAULT_BM25.maxPostingsPerTerm, 1, 10_000_000),
    // The weight of the first pages' reordering (regularise.ts); 0 gives BM25's order, to measure its cost.
    regularisation: num("regularisation", DEFAULT_REGULARISATION.weight, 0, 1),
    // The scale of the learned reordering's weights (rerank.ts); 0 gives the regularised order.
    rerank: num("rerank", DEFAULT_RERANK.weight, 0, 10),
  };
  const tmp = mkdtempSync(join(tmpdir(), "osprey-search-bench-"));
  try {
    if (values.only !== "generated") await scifact(target, o, tmp);
    const reuse: DbReuse = {
      keep: values["keep-db"] === true,
      reuse: (values["reuse-db"] || undefined) as string | true | undefined,
    };
    if (values.only !== "scifact") await generated(target, Number(values.docs ?? 200_000), o, tmp, reuse);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

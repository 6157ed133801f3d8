/**
 * `npm run bench -- search [--db postgres://...] [--only scifact|generated] [--docs 200000]
 *   [--k1 0.9] [--b 0.4] [--title-weight 3] [--max-postings 5000]`
 * (a) BEIR SciFact (../shared/bench/search/scifact, read at run time, never copied): the corpus is
 *     imported through the CLI's import code (a JSONL file), the 809 train queries are searched,
 *     nDCG@10 trec_eval-style, latency p50/p95/p99, import docs/s.
 * (b) a generated Zipfian corpus (search-corpus.ts): import docs/s, latency of 200 queries.
 * PGlite in memory by default; `--db` (or SEARCH_BENCH_DATABASE_URL) runs on a fresh database
 * created on that Postgres server and dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import type { Database, Db } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { importJsonlFile } from "../../functions/search/local/import-jsonl.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { DEFAULT_RANKING } from "../../functions/search/local/prepare.ts";
import { DEFAULT_BM25 } from "../../functions/search/local/ranking.ts";
import type { DomainType } from "../../schema/search.ts";
import { createTestContext } from "../helpers/app.ts";
import { makeQueries, writeCorpus } from "./search-corpus.ts";

const DATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench/search/scifact");
const out = (s: string) => process.stdout.write(`${s}\n`);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0;

/** What the bench searches through: `GET /search?query=…` of the real app (auth, validation, rate limit, usage row). */
export type SearchFn = (query: string, domainType: DomainType, filters?: Record<string, string>) => Promise<string[]>;

/**
 * The search API over `db` with the local index as its only provider, for a pro account whose
 * per-minute limit is lifted (the bench sends hundreds of queries a minute) and with the result
 * cache off (every query is timed end to end).
 */
async function httpSearchFn(db: Db, provider: ReturnType<typeof createLocalIndex>["provider"]): Promise<SearchFn> {
  const ctx = createTestContext(db, { search: { providers: [provider], cacheTtlMs: 0 } });
  const { key, accountId } = await ctx.newKey({ plan: "pro" });
  await ctx.services.accounts.setLimits(accountId, { searchRpm: 1_000_000 });
  return async (text, domainType, filters = {}) => {
    const params = new URLSearchParams({ query: text, domain_type: domainType, ...filters });
    const res = await ctx.call(key, `/search?${params}`);
    if (res.status !== 200) throw new Error(`GET /search answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { results: { url: string }[] };
    return body.results.map((r) => r.url);
  };
}

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

async function openBenchDb(url: string | undefined): Promise<{ db: Database; drop(): Promise<void> }> {
  if (!url) {
    const db = await openDatabase({ driver: "pglite", dataDir: null });
    await db.migrate();
    return { db, drop: () => db.close() };
  }
  const name = `osprey_bench_search_${randomBytes(4).toString("hex")}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(q).finally(() => c.end());
  };
  await admin(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = await openDatabase({ driver: "pg", url: target.toString() });
  await db.migrate();
  return {
    db,
    async drop() {
      await db.close();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

async function timeQueries(
  fn: SearchFn,
  queries: string[],
  type: DomainType,
  filters: (i: number) => Record<string, string> = () => ({}),
): Promise<{ urls: string[][]; ms: number[] }> {
  for (const [i, q] of queries.slice(0, 20).entries()) await fn(q, type, filters(i)); // warm-up
  const urls: string[][] = [];
  const ms: number[] = [];
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    urls.push(await fn(q, type, filters(i)));
    ms.push(performance.now() - t0);
  }
  return { urls, ms };
}

function latencyLine(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `p50 ${pct(s, 0.5).toFixed(1)} ms, p95 ${pct(s, 0.95).toFixed(1)} ms, p99 ${pct(s, 0.99).toFixed(1)} ms, mean ${mean.toFixed(1)} ms (${s.length} queries)`;
}

type Opts = { k1: number; b: number; titleWeight: number; maxPostingsPerTerm: number };

async function scifact(dbUrl: string | undefined, o: Opts, tmp: string): Promise<void> {
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
  const { db, drop } = await openBenchDb(dbUrl);
  try {
    const index = createLocalIndex({
      db: db.db,
      bm25: { k1: o.k1, b: o.b, maxPostingsPerTerm: o.maxPostingsPerTerm },
      ranking: { titleWeight: o.titleWeight },
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
    const searchFn = await httpSearchFn(db.db, index.provider);
    const { urls, ms } = await timeQueries(
      searchFn,
      judged.map((q) => q.text),
      "research_paper",
    );
    const ndcg = judged.reduce((sum, q, i) => sum + ndcgAt10(urls[i] ?? [], qrels.get(q._id) ?? new Map()), 0) / judged.length;
    out(
      `\n## SciFact train (${db.driver}; k1 ${o.k1}, b ${o.b}, title weight ${o.titleWeight}, max postings/term ${o.maxPostingsPerTerm})`,
    );
    out(
      `import: ${imp.inserted} documents in ${(imp.elapsedMs / 1000).toFixed(1)} s = ${imp.docsPerSecond.toFixed(0)} docs/s (rejected ${imp.rejected}); vacuum analyze ${maintainS.toFixed(1)} s`,
    );
    out(`nDCG@10: ${ndcg.toFixed(4)} over ${judged.length} queries (baseline Lucene BM25 0.696; goal 0.72)`);
    out(`latency (GET /search, in process): ${latencyLine(ms)}`);
  } finally {
    await drop();
  }
}

async function generated(dbUrl: string | undefined, count: number, o: Opts, tmp: string): Promise<void> {
  const jsonl = join(tmp, "generated.jsonl");
  await writeCorpus(jsonl, count);
  const { db, drop } = await openBenchDb(dbUrl);
  try {
    const index = createLocalIndex({
      db: db.db,
      bm25: { k1: o.k1, b: o.b, maxPostingsPerTerm: o.maxPostingsPerTerm },
      ranking: { titleWeight: o.titleWeight },
    });
    let next = 50_000;
    const imp = await importJsonlFile(index.writer, jsonl, {
      onProgress: (p) => {
        if (p.lines >= next) {
          process.stderr.write(`  ${p.lines} documents, ${((p.lines * 1000) / p.elapsedMs).toFixed(0)} docs/s\n`);
          next += 50_000;
        }
      },
    });
    const m0 = performance.now();
    await index.maintain();
    const maintainS = (performance.now() - m0) / 1000;
    const searchFn = await httpSearchFn(db.db, index.provider);
    const queries = makeQueries(200);
    const { ms } = await timeQueries(searchFn, queries, "web");
    // Narrowing filters read capped terms through the filter (ranking.ts): one site of 997
    // (about 0.1% of the index), and the documents of the last two years (about 12%).
    const site = await timeQueries(searchFn, queries, "web", (i) => ({ include_domains: `site${(i * 7) % 997}.example` }));
    const recent = await timeQueries(searchFn, queries, "web", () => ({ after_date: "2024-01-01" }));
    out(
      `\n## Generated corpus (${db.driver}; ${count} documents, 50–300 terms, Zipfian vocabulary of 60,000; max postings/term ${o.maxPostingsPerTerm})`,
    );
    out(
      `import: ${imp.inserted} documents in ${(imp.elapsedMs / 1000).toFixed(1)} s = ${imp.docsPerSecond.toFixed(0)} docs/s; vacuum analyze ${maintainS.toFixed(1)} s`,
    );
    out(`latency (GET /search, in process): ${latencyLine(ms)}`);
    out(`latency with include_domains (one site of 997): ${latencyLine(site.ms)}`);
    out(`latency with after_date (about 12% of documents): ${latencyLine(recent.ms)}`);
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
    },
  });
  const dbUrl = (values.db as string | undefined) || process.env.SEARCH_BENCH_DATABASE_URL || undefined;
  const o: Opts = {
    k1: Number(values.k1 ?? 0.9),
    b: Number(values.b ?? 0.4),
    titleWeight: Number(values["title-weight"] ?? DEFAULT_RANKING.titleWeight),
    maxPostingsPerTerm: Number(values["max-postings"] ?? DEFAULT_BM25.maxPostingsPerTerm),
  };
  const tmp = mkdtempSync(join(tmpdir(), "osprey-search-bench-"));
  try {
    if (values.only !== "generated") await scifact(dbUrl, o, tmp);
    if (values.only !== "scifact") await generated(dbUrl, Number(values.docs ?? 200_000), o, tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

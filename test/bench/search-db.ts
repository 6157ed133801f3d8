/**
 * The search bench's databases (test/bench/search.bench.ts): PGlite in memory, PGlite on a data dir
 * on disk as `osprey serve` opens OSPREY_DATA_DIR, or a scratch database on a Postgres server;
 * keeping and reusing one between runs; and the memory and disk figures printed beside timings.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { lockDataDir } from "../../containers/local/data-dir-lock.ts";
import type { Database } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { openPglite } from "../../functions/db/pglite-database.ts";

const out = (s: string) => process.stdout.write(`${s}\n`);

export interface BenchDb {
  db: Database;
  /** The Postgres database's name, or the PGlite data dir (null on PGlite in memory). */
  name: string | null;
  drop(): Promise<void>;
}

/** Where the bench's database lives (see the header comment). */
export type BenchTarget = { kind: "memory" } | { kind: "pglite-dir"; dir: string } | { kind: "pg"; url: string };

/** Keeping or reusing a generated corpus's database (a Postgres database, or a PGlite data dir). */
export interface DbReuse {
  keep: boolean;
  /** The Postgres database to reuse; on a PGlite data dir, the dir itself (`true`). */
  reuse?: string | true;
}

/** Whether `dir` holds anything (a database, a lock, files of another run). */
function nonEmpty(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).length > 0;
}

/**
 * PGlite on disk at `dir` as the product opens it for OSPREY_DATA_DIR=dir: the data dir's lock
 * first, then dir/pglite with the server's options (not the CLI's short-lived ones).
 */
export async function openPgliteDir(dir: string, reuse: DbReuse = { keep: false }): Promise<BenchDb> {
  const dataDir = resolve(dir);
  const pgliteDir = join(dataDir, "pglite");
  if (reuse.reuse) {
    if (reuse.reuse !== true && resolve(reuse.reuse) !== dataDir)
      throw new Error(`with --pglite-dir, --reuse-db takes no name (the data dir is the database), not ${reuse.reuse}`);
    if (!existsSync(join(pgliteDir, "PG_VERSION")))
      throw new Error(`--reuse-db: ${pgliteDir} holds no database (keep one first with --keep-db)`);
  } else if (nonEmpty(dataDir)) {
    throw new Error(`--pglite-dir ${dataDir} is not empty: reuse its database with --reuse-db, or remove it first`);
  }
  const lock = lockDataDir(dataDir, "osprey bench search");
  let db: Database;
  try {
    db = await openPglite(pgliteDir);
    await db.migrate();
  } catch (err) {
    lock.release();
    throw err;
  }
  const keep = reuse.keep || Boolean(reuse.reuse);
  return {
    db,
    name: dataDir,
    async drop() {
      try {
        await db.close();
      } finally {
        lock.release();
      }
      if (keep) out(`(data dir ${dataDir} kept: --pglite-dir ${dataDir} --reuse-db times its queries again)`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function openBenchDb(target: BenchTarget, reuse: DbReuse = { keep: false }): Promise<BenchDb> {
  if (target.kind === "memory") {
    const db = await openDatabase({ driver: "pglite", dataDir: null });
    await db.migrate();
    return { db, name: null, drop: () => db.close() };
  }
  if (target.kind === "pglite-dir") return openPgliteDir(target.dir, reuse);
  const url = target.url;
  if (reuse.reuse === true) throw new Error("--reuse-db=NAME: name the database to reuse");
  if (reuse.reuse && !/^[a-z_][a-z0-9_]*$/.test(reuse.reuse)) throw new Error(`--reuse-db=${reuse.reuse}: not a database name`);
  const name = reuse.reuse ?? `osprey_bench_search_${randomBytes(4).toString("hex")}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(q).finally(() => c.end());
  };
  if (!reuse.reuse) await admin(`create database ${name}`);
  const target2 = new URL(url);
  target2.pathname = `/${name}`;
  const db = await openDatabase({ driver: "pg", url: target2.toString() });
  await db.migrate();
  const keep = reuse.keep || Boolean(reuse.reuse);
  return {
    db,
    name,
    async drop() {
      await db.close();
      if (keep) out(`(database ${name} kept: --reuse-db=${name} times its queries again)`);
      else await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** Bytes under `dir` (files only). */
function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  }
  return n;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** PGlite's WebAssembly memory (null on Postgres): it grows and never shrinks, up to 4 GiB. */
function wasmBytes(db: Database): number | null {
  const client = (db.db as unknown as { $client?: { Module?: { wasmMemory?: WebAssembly.Memory } } }).$client;
  return db.driver === "pglite" ? (client?.Module?.wasmMemory?.buffer.byteLength ?? null) : null;
}

/** The process's memory, PGlite's WebAssembly memory, and the data dir's size on disk. */
export function memoryLine(db: Database, dataDir: string | null): string {
  const wasm = wasmBytes(db);
  const disk = dataDir && existsSync(dataDir) ? `, data dir ${mib(duBytes(dataDir))} on disk` : "";
  return `rss ${mib(process.memoryUsage().rss)}${wasm === null ? "" : `, PGlite's WebAssembly memory ${mib(wasm)}`}${disk}`;
}

export async function countDocuments(db: Database): Promise<number> {
  const r = (await db.db.execute(sql`select count(*)::int as n from search_documents`)) as unknown as { rows: { n: number }[] };
  return Number(r.rows[0]?.n ?? 0);
}

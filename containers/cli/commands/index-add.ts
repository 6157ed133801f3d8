/**
 * `osprey index add <url...> | --file urls.txt | --sitemap <url>`: crawls pages into the local
 * search index through the fetch pipeline (address policy, cache, extraction, page typing, the
 * browser when a page needs one), with progress on stderr and a summary on stdout.
 */
import { createReadStream } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Config } from "../../../functions/config/config.ts";
import type { Db } from "../../../functions/db/db.ts";
import { createExtractorPool } from "../../../functions/extract/pool.ts";
import { buildFetch } from "../../../functions/fetch/build.ts";
import { FetchRequestSchema } from "../../../functions/fetch/fetch-request.schema.ts";
import { unavailableRenderer } from "../../../functions/fetch/renderer.ts";
import { systemClock } from "../../../functions/lib/clock.ts";
import { defaultIds } from "../../../functions/lib/ids.ts";
import { createLogger } from "../../../functions/lib/logger.ts";
import { LINE_TOO_LONG, textLines } from "../../../functions/lib/text-lines.ts";
import { safeFetch } from "../../../functions/net/safe-http.ts";
import { createIndexFeed, OPERATOR_SOURCE } from "../../../functions/search/index-feed.ts";
import type { IndexWriter } from "../../../functions/search/local/document.ts";
import { readSitemap } from "../../../functions/search/sitemap.ts";
import { openBlobStore } from "../../../functions/storage/open-blob-store.ts";
import { createChromiumRenderer } from "../../browser/chromium-pool.ts";
import { detectChromium } from "../../local/adapters.ts";
import { parseInteger, UsageError } from "../format.ts";

export interface IndexAddContext {
  config: Config;
  db: Db;
  /** The local index's writer (createLocalIndex({ db }).writer). */
  writer: IndexWriter;
  /** stdout: the summary. */
  out: (line: string) => void;
  /** stderr: progress. */
  progress: (line: string) => void;
  /** What --file is resolved against (the CLI's directory, also when the server runs the command). */
  cwd?: string;
}

export interface IndexAddSummary {
  total: number;
  ok: number;
  failed: number;
  /** Fetched but nothing indexable (JSON, CSV). */
  skipped: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  failures: { url: string; error: string; status?: number }[];
}

async function collectUrls(
  ctx: IndexAddContext,
  values: { file?: string; sitemap?: string[]; limit?: string },
  positionals: string[],
): Promise<{ urls: string[]; sitemapErrors: number }> {
  const limit = values.limit === undefined ? 50_000 : parseInteger("--limit", values.limit);
  if (limit < 1) throw new UsageError("--limit must be at least 1");
  const urls = new Set<string>();
  const add = (raw: string) => {
    const s = raw.trim();
    if (s && !s.startsWith("#") && urls.size < limit) urls.add(s);
  };
  positionals.forEach(add);
  if (values.file) {
    // Streamed, a line at a time up to the limit: the file is never held whole (the command may run
    // in the server, for a CLI beside it), and a line past MAX_LINE_CHARS is no URL.
    const file = path.resolve(ctx.cwd ?? process.cwd(), values.file);
    try {
      for await (const line of textLines(createReadStream(file, { encoding: "utf8" }))) {
        if (urls.size >= limit) break;
        if (line !== LINE_TOO_LONG) add(line);
      }
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new UsageError(`--file ${values.file}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
  }
  let sitemapErrors = 0;
  const allow = ctx.config.allowPrivateHosts;
  for (const sitemap of values.sitemap ?? []) {
    ctx.progress(`reading sitemap ${sitemap}`);
    const r = await readSitemap(sitemap, (u, o) => safeFetch(u, { ...o, allow }), { maxUrls: Math.max(1, limit - urls.size) });
    for (const e of r.errors) ctx.progress(`sitemap ${e.url}: ${e.error}`);
    sitemapErrors += r.errors.length;
    ctx.progress(`sitemap ${sitemap}: ${r.urls.length} URLs${r.truncated ? " (cut short by a limit)" : ""}`);
    r.urls.forEach(add);
  }
  return { urls: [...urls], sitemapErrors };
}

/**
 * Crawls and reports; resolves with the summary and the exit code (1 when nothing was indexed or
 * the index refused writes). The code is the caller's to apply: the command may run in the server
 * for a CLI beside it, where process.exitCode is the server's.
 */
export async function indexAddCommand(
  ctx: IndexAddContext,
  args: string[],
): Promise<{ summary: IndexAddSummary; exitCode: number }> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      file: { type: "string" },
      sitemap: { type: "string", multiple: true },
      concurrency: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const concurrency = values.concurrency === undefined ? 4 : parseInteger("--concurrency", values.concurrency);
  if (concurrency < 1 || concurrency > 32) throw new UsageError("--concurrency must be from 1 to 32");
  if (positionals.length === 0 && !values.file && !values.sitemap?.length) {
    throw new UsageError("index add needs URLs, --file or --sitemap");
  }
  const { urls, sitemapErrors } = await collectUrls(ctx, values, positionals);
  if (urls.length === 0) throw new UsageError("no URLs to add");

  const logger = createLogger(ctx.config.logLevel === "debug" ? "debug" : "warn");
  const feed = createIndexFeed(ctx.writer, { logger, maxQueue: Number.POSITIVE_INFINITY, batchSize: 50 });
  const chromium = detectChromium(ctx.config);
  const renderer = chromium.path
    ? createChromiumRenderer({ executablePath: chromium.path, egress: { allowPrivateHosts: ctx.config.allowPrivateHosts } })
    : unavailableRenderer(chromium.reason);
  const extractor = createExtractorPool({ size: Math.min(concurrency, 4) });
  const api = buildFetch({
    config: ctx.config,
    db: ctx.db,
    clock: systemClock,
    ids: defaultIds,
    logger,
    renderer,
    extractor,
    blobs: openBlobStore(ctx.config.blobStore),
    index: feed,
  });
  const req = { ...FetchRequestSchema.parse({ urls: ["https://example.com/"] }), urls: [] };
  const summary: IndexAddSummary = {
    total: urls.length,
    ok: 0,
    failed: 0,
    skipped: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    failures: [],
  };
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++] as string;
      const { outcome: o } = await api.fetch.fetchOne(url, req);
      done++;
      let note: string;
      if (!o.ok) {
        summary.failed++;
        summary.failures.push({ url, error: o.error, ...(o.status ? { status: o.status } : {}) });
        note = `failed ${url}: ${o.error}${o.status ? ` (HTTP ${o.status})` : ""}`;
      } else if (o.indexDoc) {
        summary.ok++;
        // The operator's crawl: global, like an import.
        feed.offer(o.indexDoc, OPERATOR_SOURCE);
        note = `ok ${url} (${o.indexDoc.type ?? "web"})`;
      } else {
        summary.skipped++;
        note = `skipped ${url}: no indexable text`;
      }
      ctx.progress(`[${done}/${urls.length}] ${note}  (ok ${summary.ok}, failed ${summary.failed})`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker));
    await feed.whenIdle();
  } finally {
    await Promise.allSettled([renderer.close(), extractor.close()]);
  }
  const s = feed.stats();
  Object.assign(summary, { inserted: s.inserted, updated: s.updated, unchanged: s.unchanged, rejected: s.rejected });
  const upsertFailed = s.failed;
  if (values.json) ctx.out(JSON.stringify({ ...summary, sitemap_errors: sitemapErrors, upsert_failed: upsertFailed }));
  else {
    ctx.out(
      `Indexed ${summary.ok} of ${summary.total} URLs: ${s.inserted} new, ${s.updated} updated, ${s.unchanged} unchanged, ${s.rejected} refused; ${summary.failed} failed, ${summary.skipped} skipped.`,
    );
    if (upsertFailed > 0) ctx.out(`${upsertFailed} pages could not be written to the index (see the log).`);
  }
  return { summary, exitCode: summary.ok === 0 || upsertFailed > 0 ? 1 : 0 };
}

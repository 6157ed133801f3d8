/**
 * `osprey index import --jsonl <file>`: one JSON document per line (url, title, text; optional
 * published_date, language, site_name, type, publisher, authors, venue, year, pdf_url,
 * cited_by_count), streamed line by line and upserted in batches. Idempotent on the normalised URL.
 * Lines that are not JSON objects or miss url/text are reported with their line number and skipped,
 * and so are lines longer than MAX_LINE_CHARS, which are never held whole.
 */
import { createReadStream } from "node:fs";
import { LINE_TOO_LONG, MAX_LINE_CHARS, textLines } from "../../lib/text-lines.ts";
import type { IndexDocument, IndexWriter } from "./document.ts";
import { BATCH_SIZE } from "./writer.ts";

export interface ImportProgress {
  lines: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  elapsedMs: number;
}

export interface ImportSummary extends ImportProgress {
  /** Documents processed (inserted + updated + unchanged) per second. */
  docsPerSecond: number;
  /** The first rejected lines with their reason (at most `maxErrors`). */
  errors: { line: number; reason: string }[];
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The document of one JSONL line, or the reason it is refused. */
export function parseJsonlDocument(line: string): IndexDocument | { reason: string } {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch (err) {
    return { reason: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return { reason: "not a JSON object" };
  const r = o as Record<string, unknown>;
  const url = str(r.url);
  if (!url) return { reason: "missing url" };
  const text = str(r.text) ?? "";
  const title = str(r.title) ?? "";
  if (!text && !title) return { reason: "missing text" };
  const type = str(r.type);
  if (type !== undefined && type !== "web" && type !== "news" && type !== "research_paper") {
    return { reason: `type must be web, news or research_paper, not ${type}` };
  }
  const yearText = str(r.year);
  return {
    url,
    title,
    text,
    type,
    language: str(r.language),
    publishedDate: str(r.published_date),
    siteName: str(r.site_name),
    publisher: str(r.publisher),
    authors: Array.isArray(r.authors) ? r.authors.filter((a): a is string => typeof a === "string") : undefined,
    venue: str(r.venue),
    year: num(r.year) ?? (yearText && /^\d{1,4}$/.test(yearText) ? Number(yearText) : undefined),
    pdfUrl: str(r.pdf_url),
    citedByCount: num(r.cited_by_count),
  };
}

export interface ImportOptions {
  batchSize?: number;
  /** Called after every batch. */
  onProgress?: (p: ImportProgress) => void;
  maxErrors?: number;
  now?: () => number;
  /** The longest line read (MAX_LINE_CHARS). */
  maxLineChars?: number;
}

export async function importJsonlLines(
  writer: IndexWriter,
  lines: AsyncIterable<string | typeof LINE_TOO_LONG>,
  opts: ImportOptions = {},
): Promise<ImportSummary> {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const batchSize = opts.batchSize ?? BATCH_SIZE;
  const maxErrors = opts.maxErrors ?? 100;
  const p: ImportProgress = { lines: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, elapsedMs: 0 };
  const errors: { line: number; reason: string }[] = [];
  const reject = (line: number, reason: string) => {
    p.rejected++;
    if (errors.length < maxErrors) errors.push({ line, reason });
  };
  let batch: { line: number; doc: IndexDocument }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const r = await writer.upsert(batch.map((b) => b.doc));
    p.inserted += r.inserted;
    p.updated += r.updated;
    p.unchanged += r.unchanged;
    for (const rej of r.rejected) {
      const at = batch.find((b) => b.doc.url === rej.url)?.line ?? 0;
      reject(at, `${rej.reason}${rej.url ? ` (${rej.url})` : ""}`);
    }
    batch = [];
    p.elapsedMs = now() - started;
    opts.onProgress?.({ ...p });
  };
  for await (const raw of lines) {
    p.lines++;
    if (raw === LINE_TOO_LONG) {
      reject(p.lines, `longer than ${opts.maxLineChars ?? MAX_LINE_CHARS} characters`);
      continue;
    }
    const line = raw.trim();
    if (line === "") continue;
    const doc = parseJsonlDocument(line);
    if ("reason" in doc) reject(p.lines, doc.reason);
    else batch.push({ line: p.lines, doc });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  p.elapsedMs = now() - started;
  const done = p.inserted + p.updated + p.unchanged;
  return { ...p, docsPerSecond: p.elapsedMs > 0 ? (done * 1000) / p.elapsedMs : 0, errors };
}

/** Streams a JSONL file (never read whole into memory). */
export function importJsonlFile(writer: IndexWriter, path: string, opts: ImportOptions = {}): Promise<ImportSummary> {
  const lines = textLines(createReadStream(path, { encoding: "utf8" }), opts.maxLineChars);
  return importJsonlLines(writer, lines, opts);
}

import type { DomainType } from "../types.ts";

/**
 * A document for the local index: what `osprey index import --jsonl` reads per line, what the fetch
 * API upserts after a successful extraction, and what `osprey index add` crawls into it.
 */
export interface IndexDocument {
  url: string;
  title: string;
  text: string;
  siteName?: string;
  type?: DomainType;
  /** ISO 639-1; detected from the text when absent. */
  language?: string;
  /** YYYY-MM-DD (or a full ISO date-time, cut to the day). */
  publishedDate?: string;
  publisher?: string;
  authors?: string[];
  venue?: string;
  year?: number;
  pdfUrl?: string;
  citedByCount?: number;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
  /** Same URL with identical content: nothing to do. */
  unchanged: number;
  /** Refused (no usable URL, no text): with the reason per URL. */
  rejected: { url: string; reason: string }[];
}

/** The local index's write side (implemented in local-index.ts). */
export interface IndexWriter {
  upsert(docs: IndexDocument[]): Promise<UpsertResult>;
  remove(url: string): Promise<boolean>;
  count(): Promise<number>;
}

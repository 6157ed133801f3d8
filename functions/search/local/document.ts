import type { DomainType } from "../../../schema/search.ts";

/**
 * A document for the local index: what `osprey index import --jsonl` reads per line, what the fetch
 * API upserts after a successful extraction, and what `osprey index add` crawls into it.
 */
export interface IndexDocument {
  url: string;
  /**
   * The account that alone may find this copy; absent: every account (operator imports and
   * crawls, and fetched pages the operator shares: index-feed.ts decides). One URL has at most one
   * copy per owner.
   */
  ownerAccountId?: string;
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
  /** Same owner and URL with identical content: nothing to do. */
  unchanged: number;
  /** Refused (no usable URL, no text): with the reason per URL. */
  rejected: { url: string; reason: string }[];
}

/** The local index's write side (implemented in local-index.ts). */
export interface IndexWriter {
  upsert(docs: IndexDocument[]): Promise<UpsertResult>;
  /** The operator's removal (`osprey index remove`): every copy of the URL, global and private. */
  remove(url: string): Promise<boolean>;
  /** Documents in the index, every copy counted (an operator's figure). */
  count(): Promise<number>;
}

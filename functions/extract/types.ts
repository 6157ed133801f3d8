/// <reference lib="dom" />
/**
 * Types shared by the extraction pipeline (spec 2.5 and 4.6). The fetch service calls
 * `extractHtml` (extract.ts) with these options and maps the outcome to its wire result.
 */

import type { DomainType } from "../../schema/search.ts";
import type { DocTree } from "./output/tree-schema.ts";
import type { PdfExtraction } from "./pdf.ts";

export interface ExtractOptions {
  /** Final URL of the page: base for absolute links and a hint for page-type heuristics. */
  url: string;
  format: "markdown" | "html" | "json";
  links: boolean;
  imageLinks: boolean;
  includeSelectors?: string[];
  excludeSelectors?: string[];
  /** Also return `index` (the page's type and plain text) for the local search index. */
  forIndex?: boolean;
}

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  author: string | null;
  publishedDate: string | null;
}

export interface ExtractedPage extends PageMetadata {
  text: string | DocTree;
  links?: string[];
  imageLinks?: string[];
  unmatchedSelectors?: string[];
  textLength: number;
  /** Only with `forIndex`: what the local index stores besides the metadata. */
  index?: { plainText: string; typing: PageTyping };
}

/** What page-type.ts tells of a page for the local index (its type and the facts that decided it). */
export interface PageTyping {
  type: DomainType;
  /** YYYY-MM-DD. */
  publishedDate?: string;
  publisher?: string;
  authors?: string[];
  venue?: string;
  year?: number;
  pdfUrl?: string;
  /** og:site_name (or application-name) when the page states one. */
  siteName?: string;
}

export type ExtractOutcome =
  | { ok: true; page: ExtractedPage }
  | { ok: false; error: "empty_content"; message?: string }
  /** The request's selectors ran past the page's matching budget (output/select.ts). */
  | { ok: false; error: "timeout"; message: string }
  | { ok: false; error: "selector_not_matched"; unmatchedSelectors: string[]; candidateSelectors: string[] };

/**
 * An extraction the extractor gave up on: it ran past its time budget, or its worker ran out of
 * memory and was replaced. The fetch API answers it for that URL (spec 7.4), not for the request.
 */
export class ExtractionLimitError extends Error {
  override name = "ExtractionLimitError";
  readonly limit: "time" | "memory";
  constructor(limit: "time" | "memory", message: string) {
    super(message);
    this.limit = limit;
  }
}

/**
 * Runs extraction, off the event loop where the deployment allows (pool.ts): the port the fetch
 * service and the agent are given.
 */
export interface Extractor {
  extract(html: string, opts: ExtractOptions): Promise<ExtractOutcome>;
  pdf(bytes: Uint8Array, opts: { maxPages?: number; maxBytes?: number }): Promise<PdfExtraction>;
}

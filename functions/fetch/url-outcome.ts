import type { FetchErrorCode } from "../../schema/fetch-errors.ts";
import { ExtractionLimitError } from "../extract/types.ts";
import type { IndexDocument } from "../search/local/document.ts";
import type { DocTree } from "./ports.ts";

/** Largest response body read from an origin (decoded), documented in the OpenAPI description. */
export const MAX_BODY_BYTES = 15 * 1024 * 1024;
export const MAX_PDF_PAGES = 300;

/**
 * Fixed explanations: the policy's and the network's own details can name internal addresses
 * (what a private name resolved to), so they go to the debug log, never to the caller.
 */
export const MESSAGES = {
  invalid_url: "Only public http(s) addresses can be fetched; this URL's host is private, reserved or not allowed.",
  invalid_redirect_url: "The page redirected to an address that is private, reserved or not allowed.",
  target_unreachable: "The site could not be reached (DNS, connection, TLS or a broken response).",
  timeout: "The page did not finish within the deadline.",
} as const;

export interface UrlSuccess {
  ok: true;
  url: string;
  finalUrl: string;
  title: string | null;
  description: string | null;
  language: string | null;
  author: string | null;
  publishedDate: string | null;
  text: string | DocTree;
  textLength: number;
  links?: string[];
  imageLinks?: string[];
  notModified?: true;
  etag?: string;
  lastModified?: string;
  unmatchedSelectors?: string[];
  /** Served from the fetch cache rather than a live fetch; cachedAt is when the origin answered. */
  cached: boolean;
  cachedAt?: string;
  /** Internal, never on the wire: what the local index gets (only when the index is fed). */
  indexDoc?: IndexDocument;
  /** Internal: indexDoc is public by every sign (search/page-visibility.ts), so it may be shared. */
  indexPublic?: boolean;
}

export interface UrlFailure {
  ok: false;
  url: string;
  finalUrl: string;
  error: FetchErrorCode;
  status?: number;
  message?: string;
  unmatchedSelectors?: string[];
  candidateSelectors?: string[];
}

export type UrlOutcome = UrlSuccess | UrlFailure;

/** The cache fields of a success built from `source` (spec 2.5 `cached`, `cached_at`). */
export const cacheState = (source: { live: boolean; fetchedAt?: Date }): Pick<UrlSuccess, "cached" | "cachedAt"> =>
  source.live || !source.fetchedAt ? { cached: false } : { cached: true, cachedAt: source.fetchedAt.toISOString() };

export const fail = (url: string, finalUrl: string, error: FetchErrorCode, extra: Partial<UrlFailure> = {}): UrlFailure => ({
  ok: false,
  url,
  finalUrl,
  error,
  ...extra,
});

/**
 * A fetched page or PDF the extractor gave up on (its time budget or its worker's memory), as that
 * URL's error: `timeout` for time (spec 7.4: the page did not finish), `empty_content` for memory
 * (no text could be read), each saying why. Any other error is not the page's and is thrown on.
 */
export function extractionFailure(url: string, finalUrl: string, err: unknown): UrlFailure {
  if (!(err instanceof ExtractionLimitError)) throw err;
  const message = `The page was fetched, but its ${err.message}.`;
  return fail(url, finalUrl, err.limit === "time" ? "timeout" : "empty_content", { message });
}

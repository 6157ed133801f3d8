import type { DocTree } from "../extract/output/tree-schema.ts";
import type { PdfExtraction } from "../extract/pdf.ts";
import type { ExtractOptions, ExtractOutcome } from "../extract/types.ts";

/** What the fetch service needs from the outside world, passed in (ARCHITECTURE.md: adapters). */

export type HttpResult =
  | { ok: true; status: number; headers: Record<string, string>; body: Buffer; finalUrl: string; truncated: boolean }
  | { ok: false; error: "invalid_url" | "invalid_redirect_url" | "target_unreachable" | "timeout"; detail: string };

/** The address-policy-enforcing HTTP client (functions/net/safe-http.ts). */
export type HttpFetch = (
  url: string,
  opts: { headers: Record<string, string>; signal: AbortSignal; maxBodyBytes: number },
) => Promise<HttpResult>;

/** Pre-DNS check of a URL against the address policy (functions/net/address-policy.ts). */
export type UrlCheck = (url: string) => { ok: true; url: URL } | { ok: false; reason: string };

/** Runs extraction, off the event loop where the deployment allows (functions/extract/pool.ts). */
export interface Extractor {
  extract(html: string, opts: ExtractOptions): Promise<ExtractOutcome>;
  pdf(bytes: Uint8Array, opts: { maxPages?: number; maxBytes?: number }): Promise<PdfOutcome>;
}

export type PdfOutcome = PdfExtraction;

export type HtmlDecoder = (body: Buffer, contentType: string | undefined) => string;

export type { DocTree };

import type { DocTree } from "../extract/output/tree-schema.ts";

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

export type HtmlDecoder = (body: Buffer, contentType: string | undefined) => string;

export type { DocTree };

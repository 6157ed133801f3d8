import { replaceTags } from "../../lib/markup.ts";
import { BodyTooLarge, readCapped } from "../../net/read-capped.ts";
import { ProviderError } from "../types.ts";

/** Default per-request budget of an upstream provider (connect, headers and body together). */
export const DEFAULT_TIMEOUT_MS = 5_000;

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface UpstreamRequest {
  /** Provider name, used as the ProviderError's `provider` and in messages. */
  provider: string;
  url: URL;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** The caller's signal: aborting it cancels the request. */
  signal: AbortSignal;
  /** Values that must never appear in an error message (API keys). */
  secrets?: (string | undefined)[];
  fetch?: FetchLike;
  /** "error" where a header carries a secret that must not follow a redirect to another host. */
  redirect?: RequestRedirect;
  /**
   * Provider-specific wording for a non-2xx answer; return undefined to fall back to the generic
   * message. `detail` is a short, redacted excerpt of the upstream's error body.
   */
  describeStatus?: (status: number, detail: string) => string | undefined;
}

/** Replaces every secret in `text` with "[redacted]" (URL-encoded forms too). */
export function redact(text: string, secrets: (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join("[redacted]");
  }
  return out;
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), when present and sane. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}

/** A short excerpt of an upstream error body: its `message`/`error` field when JSON, else the text. */
function errorDetail(body: string): string {
  let text = body;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === "object") {
      const o = parsed as Record<string, unknown>;
      const nested = o.error && typeof o.error === "object" ? (o.error as Record<string, unknown>) : undefined;
      const candidate = o.message ?? nested?.detail ?? nested?.message ?? o.error ?? o.detail;
      if (typeof candidate === "string") text = candidate;
    }
  } catch {
    // not JSON: keep the raw text
  }
  const flat = replaceTags(text, " ").replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** `message`, followed by ": detail" when the upstream gave one (for describeStatus wordings). */
export const withDetail = (message: string, detail: string): string => (detail ? `${message}: ${detail}` : message);

function genericStatusMessage(provider: string, status: number, retryAfter: number | undefined, detail: string): string {
  if (status === 429) {
    return `${provider} rate limited the request (429)${retryAfter !== undefined ? `; retry after ${retryAfter} s` : ""}`;
  }
  if (status === 401 || status === 403) return withDetail(`${provider} refused the request (${status})`, detail);
  if (status >= 500) return withDetail(`${provider} upstream error (${status})`, detail);
  return withDetail(`${provider} answered ${status}`, detail);
}

function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** The largest answer read from a search upstream: a page of results is tens of KB. */
export const MAX_UPSTREAM_BODY_BYTES = 8 * 1024 * 1024;

/**
 * GETs `url` and parses its JSON body within `timeoutMs` (or until the caller aborts). Every failure is a
 * ProviderError: timeout, caller abort, network error, non-2xx (429 with Retry-After), invalid JSON and
 * an answer past MAX_UPSTREAM_BODY_BYTES (refused as it streams, never held whole).
 * Messages never contain the request URL (it may carry an API key) nor any of `secrets`.
 */
export async function getJson(req: UpstreamRequest): Promise<unknown> {
  const { provider, secrets } = req;
  const fail = (message: string, status?: number) => new ProviderError(provider, redact(message, secrets), status);
  if (req.signal.aborted) throw fail(`${provider} request aborted by the caller`);
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = AbortSignal.any([req.signal, timeout]);
  const doFetch: FetchLike = req.fetch ?? ((input, init) => fetch(input, init));
  const abortError = () =>
    req.signal.aborted
      ? fail(`${provider} request aborted by the caller`)
      : fail(`${provider} timed out after ${req.timeoutMs} ms`);
  try {
    const res = await doFetch(req.url.toString(), {
      method: "GET",
      headers: { accept: "application/json", ...req.headers },
      signal,
      redirect: req.redirect ?? "follow",
    });
    const body = await readCapped(res, MAX_UPSTREAM_BODY_BYTES);
    if (!res.ok) {
      const detail = redact(errorDetail(body), secrets);
      const message =
        req.describeStatus?.(res.status, detail) ??
        genericStatusMessage(provider, res.status, retryAfterSeconds(res.headers.get("retry-after")), detail);
      throw fail(message, res.status);
    }
    try {
      return JSON.parse(body) as unknown;
    } catch {
      const type = res.headers.get("content-type") ?? "no content type";
      throw fail(`${provider} answered invalid JSON (${type}, ${body.length} bytes)`, res.status);
    }
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    if (err instanceof BodyTooLarge) throw fail(`${provider} answered more than ${err.max} bytes`);
    if (signal.aborted) throw abortError();
    throw fail(`${provider} unreachable: ${networkCause(err)}`);
  }
}

/** Narrows an unknown JSON value to a plain object (or an empty one). */
export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const asString = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;

export const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

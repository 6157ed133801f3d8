import { isAcceptable, originMaxAge, storableHeaders } from "./cache-policy.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import type { FetchRequest } from "./fetch-request.schema.ts";
import { fail, MAX_BODY_BYTES, MESSAGES, type UrlFailure } from "./url-outcome.ts";

/** A response to work from: fresh from the origin (live) or from the cache. */
export interface Source {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  finalUrl: string;
  rendered: boolean;
  live: boolean;
  /** When a cached response was fetched from the origin (absent on a live one). */
  fetchedAt?: Date;
  truncated: boolean;
  /** The headers a live fetch sent to the origin (whether the page can be shared in search). */
  sentHeaders?: Record<string, string>;
}

/**
 * The response for a URL: a cached entry the request's ttl accepts, else a live fetch through the
 * address-policy client. Conditional requests and requests for validators always go live.
 */
export async function acquireSource(
  deps: FetchDeps,
  url: string,
  target: { key: string; hostname: string },
  req: FetchRequest,
  signal: AbortSignal,
): Promise<Source | UrlFailure> {
  const conditional = req.if_none_match !== undefined || req.if_modified_since !== undefined;
  if (!conditional && !req.include_etag_and_last_modified) {
    const entry = await deps.cache.get(target.key);
    const pinned = deps.neverExpireHosts.includes(target.hostname.toLowerCase());
    if (entry && isAcceptable(entry, req.ttl, pinned, deps.clock.now())) return { ...entry, live: false, truncated: false };
  }
  const headers: Record<string, string> = {};
  if (req.if_none_match !== undefined) headers["if-none-match"] = req.if_none_match;
  if (req.if_modified_since !== undefined) headers["if-modified-since"] = req.if_modified_since;
  const res = await deps.http(url, { headers, signal, maxBodyBytes: MAX_BODY_BYTES });
  if (!res.ok) {
    deps.logger.debug("fetch failed", { url, error: res.error, detail: res.detail });
    return fail(url, url, res.error, { message: MESSAGES[res.error] });
  }
  const { ok: _ok, ...response } = res;
  return { ...response, rendered: false, live: true, sentHeaders: headers };
}

/** Caches a complete 2xx response (never a truncated one, never validators). */
export async function storeSource(deps: FetchDeps, urlKey: string, s: Source): Promise<void> {
  if (s.truncated || s.status < 200 || s.status > 299) return;
  const fetchedAt = deps.clock.now();
  try {
    await deps.cache.put({
      urlKey,
      finalUrl: s.finalUrl,
      status: s.status,
      headers: storableHeaders(s.headers),
      body: s.body,
      rendered: s.rendered,
      fetchedAt,
      originMaxAge: originMaxAge(s.headers, fetchedAt),
    });
  } catch (err) {
    // The cache is an optimisation: a failed write must not fail the URL.
    deps.logger.warn("fetch cache write failed", { url: urlKey, error: err });
  }
}

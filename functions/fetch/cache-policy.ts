/**
 * Cache rules of the fetch API (spec 4.6 `ttl`): how long the origin says a response stays fresh,
 * and whether a cached entry may answer a request.
 */

/** The origin's cache lifetime in seconds from Cache-Control (s-maxage, max-age) or Expires; null if none. */
export function originMaxAge(headers: Record<string, string>, fetchedAt: Date): number | null {
  const cc = (headers["cache-control"] ?? "").toLowerCase();
  if (/(^|,)\s*(no-store|no-cache|private)\b/.test(cc)) return 0;
  const directive = (name: string) => {
    const m = new RegExp(`(?:^|,)\\s*${name}\\s*=\\s*"?(\\d+)"?`).exec(cc);
    return m ? Number(m[1]) : null;
  };
  const maxAge = directive("s-maxage") ?? directive("max-age");
  if (maxAge !== null) return Math.min(maxAge, 2 ** 31 - 1);
  if (headers.expires !== undefined) {
    // RFC 9111 5.3: an invalid Expires (notably "0") means already expired.
    const expires = /^\s*\d+\s*$/.test(headers.expires) ? Number.NaN : Date.parse(headers.expires);
    if (Number.isNaN(expires)) return 0;
    const date = headers.date ? Date.parse(headers.date) : Number.NaN;
    const base = Number.isNaN(date) ? fetchedAt.getTime() : date;
    return Math.max(0, Math.floor((expires - base) / 1000));
  }
  return null;
}

export interface CacheEntryAge {
  fetchedAt: Date;
  originMaxAge: number | null;
}

/**
 * Whether a cached entry may answer. ttl omitted: any entry. ttl 0 or N: the entry's age must be
 * within the larger of N and the origin's lifetime; a never-expire host always accepts.
 */
export function isAcceptable(entry: CacheEntryAge, ttl: number | undefined, pinnedHost: boolean, now: Date): boolean {
  if (ttl === undefined || pinnedHost) return true;
  const ageSeconds = (now.getTime() - entry.fetchedAt.getTime()) / 1000;
  const tolerance = Math.max(ttl, entry.originMaxAge ?? 0);
  // ttl 0 with no origin lifetime: strictly a live fetch.
  return tolerance > 0 && ageSeconds < tolerance;
}

/** The cache key of a requested URL: the parsed URL without its fragment. */
export function cacheKey(url: URL): string {
  const u = new URL(url);
  u.hash = "";
  return u.toString();
}

/** Headers that are never stored (validators: spec 4.6 rule 2; per-connection and cookie headers). */
const NOT_STORED = new Set(["etag", "last-modified", "set-cookie", "connection", "keep-alive", "transfer-encoding"]);

export function storableHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !NOT_STORED.has(k.toLowerCase())));
}

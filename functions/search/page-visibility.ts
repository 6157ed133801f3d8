/**
 * Whether a fetched page is public by every sign we can see, the condition for sharing it with
 * every account in the local index when the operator opts in (OSPREY_SEARCH_SHARE_PUBLIC_PAGES).
 * Anything short of every sign keeps the page private to the account that fetched it: a page is
 * only as public as the least public thing about how it was fetched.
 */

/** What the fetch pipeline knows about how a page was obtained. */
export interface FetchedPageSigns {
  /** The URL the caller asked for. */
  requestedUrl: string;
  /** The URL after redirects (what the index stores). */
  finalUrl: string;
  /** The headers this fetch sent to the origin (conditional headers; any the caller supplied). */
  sentHeaders?: Record<string, string>;
  status: number;
  /** The origin's response headers, lower-case names. */
  headers: Record<string, string>;
  /**
   * Fresh from the origin in this request. A cached entry has lost its Set-Cookie (the fetch cache
   * never stores it), so it cannot show that none was sent.
   */
  live: boolean;
  /** Rendered in Chromium: the browser's own responses and cookies are not seen here. */
  rendered: boolean;
}

/** Request headers that carry the caller's identity. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** 2xx statuses a shared cache may store by default (RFC 9110 15.1); only 2xx pages are indexed. */
const CACHEABLE_STATUSES = new Set([200, 203]);

/** No query string (tokens and session ids live there) and no userinfo (credentials). */
function anonymousUrl(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  u.hash = "";
  // `href`, not `search`: "?" alone leaves `search` empty.
  return u.username === "" && u.password === "" && !u.href.includes("?");
}

export function publicByEverySign(s: FetchedPageSigns): boolean {
  if (!s.live || s.rendered) return false;
  if (!anonymousUrl(s.requestedUrl) || !anonymousUrl(s.finalUrl)) return false;
  const sent = Object.keys(s.sentHeaders ?? {}).map((k) => k.toLowerCase());
  if (CREDENTIAL_HEADERS.some((h) => sent.includes(h))) return false;
  if (!CACHEABLE_STATUSES.has(s.status)) return false;
  const header = (name: string) => Object.entries(s.headers).find(([k]) => k.toLowerCase() === name)?.[1];
  // A response that starts a session, or that a shared cache must not keep, is someone's own.
  if (header("set-cookie") !== undefined) return false;
  const cacheControl = (header("cache-control") ?? "").toLowerCase();
  if (/(^|,)\s*(private|no-store)\b/.test(cacheControl)) return false;
  return true;
}

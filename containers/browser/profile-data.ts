import type { Protocol } from "puppeteer-core";
import type { DomainState, OriginStorage, ProfileCookie } from "../../functions/profiles/profile-state.ts";
import { registrableDomain } from "../../functions/vault/domains.ts";

/**
 * The pure half of loading and reading a Browser Context Profile (profile-state.ts does the
 * browser half): a profile cookie to and from what CDP carries, the size caps, grouping by
 * registrable domain, and what changed between two states.
 */

/**
 * Cookies kept per registrable domain: Chromium's own cap (net/cookies/cookie_monster.h,
 * kDomainMaxCookies = 180; it evicts down to 150 beyond it), so a profile never holds more than a
 * browser would. Beyond it the first 180 in the browser's order are kept.
 */
export const MAX_COOKIES_PER_DOMAIN = 180;

/**
 * Cookies kept per profile: Chromium keeps at most 3,300 per context and evicts down to 3,000
 * (kMaxCookies, kPurgeCookies), the least recently used first, which could be the ones just loaded.
 * Beyond it the first 3,000 in the profile's order are loaded.
 */
export const MAX_COOKIES_TOTAL = 3000;

/**
 * localStorage kept per origin, counted as Chromium counts its quota (UTF-16: 2 bytes per code
 * unit of each key and value). 1 MiB: a login's tokens and settings fit many times over; what sites
 * cache in localStorage beyond that is dropped, the largest items first, so small items (the ones
 * that hold sessions) survive. The loader also sends these bytes into every new document of the
 * context until the origin is first opened, which is why the cap is well below the browser's quota.
 */
export const MAX_STORAGE_BYTES_PER_ORIGIN = 1024 * 1024;

export type StorageItems = [string, string][];

const DEFAULT_PRIORITY = "Medium";

/** A cookie's host: its domain without the leading dot a domain cookie has. */
export const cookieHost = (domain: string): string => domain.replace(/^\./, "").toLowerCase();

/** Whether a cookie has expired by `nowSeconds` (a session cookie never has). */
export function isExpired(c: ProfileCookie, nowSeconds: number): boolean {
  return Number.isFinite(c.expires) && c.expires > 0 && c.expires <= nowSeconds;
}

/**
 * A profile cookie as Storage.setCookies takes it. `domain` is passed as stored: with a leading dot
 * Chromium makes a domain cookie, without one a host-only cookie (no `url` is given: its port would
 * override `sourcePort`).
 */
export function toCookieParam(c: ProfileCookie): Protocol.Network.CookieParam {
  const p: Protocol.Network.CookieParam = {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path || "/",
    secure: c.secure,
    httpOnly: c.httpOnly,
  };
  if (Number.isFinite(c.expires) && c.expires > 0) p.expires = c.expires;
  if (c.sameSite) p.sameSite = c.sameSite;
  if (c.priority) p.priority = c.priority;
  if (c.sourceScheme) p.sourceScheme = c.sourceScheme;
  if (c.sourcePort !== undefined && c.sourcePort > 0) p.sourcePort = c.sourcePort;
  if (c.partitionKey) p.partitionKey = { ...c.partitionKey };
  return p;
}

/** Chromium caps a cookie's lifetime at 400 days from when it is set (RFC 6265bis, cookie_constants.h). */
const MAX_COOKIE_AGE_SECONDS = 400 * 86_400;

/**
 * A profile cookie as Chromium will hold it once set: domain lower-cased, an empty path made "/",
 * expiry capped at 400 days from `nowSeconds`. What a context starts with, to compare with later.
 */
export function asStored(c: ProfileCookie, nowSeconds: number): ProfileCookie {
  const out = { ...c, domain: c.domain.toLowerCase(), path: c.path || "/" };
  if (Number.isFinite(c.expires) && c.expires > nowSeconds + MAX_COOKIE_AGE_SECONDS)
    out.expires = nowSeconds + MAX_COOKIE_AGE_SECONDS;
  return out;
}

/** A cookie CDP reported, as a profile keeps it; null for one partitioned under an opaque site (it cannot be set again). */
export function fromCdpCookie(c: Protocol.Network.Cookie): ProfileCookie | null {
  if (c.partitionKeyOpaque) return null;
  const out: ProfileCookie = {
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    expires: c.session ? -1 : c.expires,
    httpOnly: c.httpOnly,
    secure: c.secure,
  };
  if (c.sameSite) out.sameSite = c.sameSite;
  if (c.priority) out.priority = c.priority;
  if (c.sourceScheme) out.sourceScheme = c.sourceScheme;
  if (c.sourcePort !== undefined && c.sourcePort > 0) out.sourcePort = c.sourcePort;
  if (c.partitionKey) {
    out.partitionKey = { topLevelSite: c.partitionKey.topLevelSite, hasCrossSiteAncestor: c.partitionKey.hasCrossSiteAncestor };
  }
  return out;
}

/** A cookie's identity: what makes two cookies the same cookie for the browser. */
export function cookieKey(c: ProfileCookie): string {
  const pk = c.partitionKey ? `${c.partitionKey.topLevelSite}\u0000${c.partitionKey.hasCrossSiteAncestor ? 1 : 0}` : "";
  return `${c.name}\u0000${c.domain.toLowerCase()}\u0000${c.path}\u0000${pk}`;
}

/** The origin (scheme://host[:port]) of an http(s) origin or URL, or null. */
export function httpOrigin(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const u = new URL(value);
  return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
}

export const storageBytes = (items: StorageItems): number => items.reduce((n, [k, v]) => n + 2 * (k.length + v.length), 0);

/** `items` within `maxBytes`, the largest dropped first; the kept ones stay in their order. */
export function capItems(items: StorageItems, maxBytes = MAX_STORAGE_BYTES_PER_ORIGIN): { items: StorageItems; dropped: number } {
  if (storageBytes(items) <= maxBytes) return { items, dropped: 0 };
  const bySize = items.map((item, i) => ({ i, size: 2 * (item[0].length + item[1].length) })).sort((a, b) => a.size - b.size);
  const keep = new Set<number>();
  let total = 0;
  for (const { i, size } of bySize) {
    if (total + size > maxBytes) break;
    total += size;
    keep.add(i);
  }
  return { items: items.filter((_, i) => keep.has(i)), dropped: items.length - keep.size };
}

/**
 * Cookies and localStorage grouped into one DomainState per registrable domain (of the cookie's
 * host, of the origin's host), domains sorted; cookies beyond MAX_COOKIES_PER_DOMAIN are dropped
 * and counted. Origins without items are left out.
 */
export function groupByDomain(
  cookies: ProfileCookie[],
  storage: OriginStorage[],
): { domains: DomainState[]; droppedCookies: number } {
  const byDomain = new Map<string, DomainState>();
  const entry = (domain: string): DomainState => {
    let d = byDomain.get(domain);
    if (!d) {
      d = { domain, cookies: [], localStorage: [] };
      byDomain.set(domain, d);
    }
    return d;
  };
  let droppedCookies = 0;
  for (const c of cookies) {
    const d = entry(registrableDomain(cookieHost(c.domain)));
    if (d.cookies.length >= MAX_COOKIES_PER_DOMAIN) droppedCookies++;
    else d.cookies.push(c);
  }
  for (const s of storage) {
    if (s.items.length === 0) continue;
    entry(registrableDomain(new URL(s.origin).hostname)).localStorage.push(s);
  }
  for (const d of byDomain.values()) d.localStorage.sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
  const domains = [...byDomain.values()].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  return { domains, droppedCookies };
}

function sameCookie(a: ProfileCookie, b: ProfileCookie): boolean {
  const session = (c: ProfileCookie) => !(Number.isFinite(c.expires) && c.expires > 0);
  // Chromium keeps expiry to the microsecond but a stored copy may have been rounded: within a second is the same.
  const sameExpiry = session(a) || session(b) ? session(a) === session(b) : Math.abs(a.expires - b.expires) < 1;
  return (
    a.value === b.value &&
    a.httpOnly === b.httpOnly &&
    a.secure === b.secure &&
    a.sameSite === b.sameSite &&
    (a.priority ?? DEFAULT_PRIORITY) === (b.priority ?? DEFAULT_PRIORITY) &&
    sameExpiry &&
    // Where the cookie was set from: only a difference when both sides know it.
    (a.sourceScheme === undefined || b.sourceScheme === undefined || a.sourceScheme === b.sourceScheme) &&
    (a.sourcePort === undefined || b.sourcePort === undefined || a.sourcePort === b.sourcePort)
  );
}

function sameCookies(a: ProfileCookie[], b: ProfileCookie[]): boolean {
  if (a.length !== b.length) return false;
  const byKey = new Map(a.map((c) => [cookieKey(c), c]));
  if (byKey.size !== a.length) return false;
  return b.every((c) => {
    const other = byKey.get(cookieKey(c));
    return other !== undefined && sameCookie(other, c);
  });
}

function sameStorage(a: OriginStorage[], b: OriginStorage[]): boolean {
  const maps = (list: OriginStorage[]) =>
    new Map(list.filter((s) => s.items.length > 0).map((s) => [httpOrigin(s.origin) ?? s.origin, new Map(s.items)]));
  const ma = maps(a);
  const mb = maps(b);
  if (ma.size !== mb.size) return false;
  for (const [origin, items] of ma) {
    const other = mb.get(origin);
    if (!other || other.size !== items.size) return false;
    for (const [k, v] of items) if (other.get(k) !== v) return false;
  }
  return true;
}

const isEmpty = (d: DomainState | undefined): boolean =>
  !d || (d.cookies.length === 0 && d.localStorage.every((s) => s.items.length === 0));

/** Merges entries that name the same domain (a well-formed list has one per domain). */
function byDomain(list: DomainState[]): Map<string, DomainState> {
  const out = new Map<string, DomainState>();
  for (const d of list) {
    const prev = out.get(d.domain);
    out.set(
      d.domain,
      prev
        ? { domain: d.domain, cookies: [...prev.cookies, ...d.cookies], localStorage: [...prev.localStorage, ...d.localStorage] }
        : d,
    );
  }
  return out;
}

/**
 * The domains whose state differs between `loaded` (what a context started with) and `now` (what it
 * has): cookies compared by identity (name, domain, path, partition key) and then value and
 * attributes, localStorage by origin and key, order never mattering. `state` is null for a domain
 * that had state and now has none (logged out, cleared). Sorted by domain.
 */
export function changedDomains(loaded: DomainState[], now: DomainState[]): { domain: string; state: DomainState | null }[] {
  const before = byDomain(loaded);
  const after = byDomain(now);
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: { domain: string; state: DomainState | null }[] = [];
  for (const domain of names) {
    const a = before.get(domain);
    const b = after.get(domain);
    if (isEmpty(a) && isEmpty(b)) continue;
    if (isEmpty(b)) out.push({ domain, state: null });
    else if (!b) continue;
    else if (isEmpty(a) || !a || !sameCookies(a.cookies, b.cookies) || !sameStorage(a.localStorage, b.localStorage)) {
      out.push({ domain, state: b });
    }
  }
  return out;
}

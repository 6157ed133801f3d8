import type { SearchHit, SearchQuery } from "../types.ts";
import { hostOf, utcDay } from "./text.ts";

/**
 * Our side of the filters (spec 4.7). Upstream filters leak: `site:` is a hint some engines ignore, time
 * windows are approximate ("past month") and measured on the upstream's own notion of a date. Every provider
 * therefore post-filters what it got back, exactly:
 *
 * - hosts: a hit matches a domain when its URL's host equals it or is a subdomain of it ("docs.x.com" matches
 *   "x.com"; "notx.com" does not). Excluded hosts always win over included ones. Hits whose URL is not
 *   http(s) are dropped.
 * - dates (web/news): `afterDate`/`beforeDate` are inclusive calendar days; `recencyMinutes` keeps hits dated
 *   on or after the UTC day of (now - recencyMinutes). Dates are day-precision, so a hit from earlier on the
 *   cut-off day is kept.
 * - undated hits: kept for web (most web pages carry no date, and the upstream already applied its own window),
 *   dropped for news when any date filter is set (a news item without a date cannot be shown to be recent).
 * - research papers: `pubYearMin`/`pubYearMax` are inclusive; a paper without a year is dropped when either
 *   bound is set.
 */
export function postFilter(hits: SearchHit[], q: SearchQuery, now: Date = new Date()): SearchHit[] {
  const include = normaliseDomains(q.includeDomains);
  const exclude = normaliseDomains(q.excludeDomains);
  const lower = lowerDateBound(q, now);
  const upper = q.beforeDate;
  const dateFiltered = lower !== undefined || upper !== undefined;
  const yearFiltered = q.pubYearMin !== undefined || q.pubYearMax !== undefined;
  return hits.filter((hit) => {
    const host = hostOf(hit.url);
    if (!host) return false;
    if (exclude.some((d) => hostMatches(host, d))) return false;
    if (include.length > 0 && !include.some((d) => hostMatches(host, d))) return false;
    if (q.domainType === "research_paper") {
      if (!yearFiltered) return true;
      if (hit.year === undefined) return false;
      if (q.pubYearMin !== undefined && hit.year < q.pubYearMin) return false;
      return !(q.pubYearMax !== undefined && hit.year > q.pubYearMax);
    }
    if (!dateFiltered) return true;
    if (!hit.date) return q.domainType === "web";
    if (lower !== undefined && hit.date < lower) return false;
    return !(upper !== undefined && hit.date > upper);
  });
}

/** Whether `host` is `domain` or one of its subdomains (both lower-case). */
export function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function normaliseDomains(domains: string[]): string[] {
  return domains.map((d) => d.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean);
}

/** The inclusive lower day bound of a web/news query: afterDate, or the UTC day recencyMinutes reaches back to. */
export function lowerDateBound(q: SearchQuery, now: Date = new Date()): string | undefined {
  if (q.afterDate) return q.afterDate;
  if (q.recencyMinutes !== undefined) return utcDay(new Date(now.getTime() - q.recencyMinutes * 60_000));
  return undefined;
}

/**
 * How far back from `now` the query's date filter reaches, in minutes, when it can be expressed as "the
 * last N" (recencyMinutes, or afterDate up to now). Undefined when there is no lower bound.
 */
export function lookbackMinutes(q: SearchQuery, now: Date = new Date()): number | undefined {
  if (q.domainType === "research_paper") return undefined;
  if (q.recencyMinutes !== undefined) return q.recencyMinutes;
  if (!q.afterDate) return undefined;
  const start = Date.parse(`${q.afterDate}T00:00:00Z`);
  if (!Number.isFinite(start)) return undefined;
  return Math.max(1, Math.ceil((now.getTime() - start) / 60_000));
}

/** Minutes in a day: the unit of upstream windows and of recencyMinutes. */
export const DAY_MINUTES = 1_440;

/**
 * The narrowest of an upstream's "last N" windows that contains `minutes`: windows are [name, length in
 * minutes], shortest first. Undefined (no upstream window) when none is long enough.
 */
export function narrowestWindow<T extends string>(
  minutes: number | undefined,
  windows: readonly (readonly [T, number])[],
): T | undefined {
  if (minutes === undefined) return undefined;
  return windows.find(([, length]) => minutes <= length)?.[0];
}

/** The query text with `site:`/`-site:` operators for upstreams that understand them. */
export function withSiteOperators(q: SearchQuery): string {
  const parts = [q.text.trim()];
  const include = normaliseDomains(q.includeDomains);
  if (include.length === 1) parts.push(`site:${include[0]}`);
  else if (include.length > 1) parts.push(`(${include.map((d) => `site:${d}`).join(" OR ")})`);
  for (const d of normaliseDomains(q.excludeDomains)) parts.push(`-site:${d}`);
  return parts.filter(Boolean).join(" ");
}

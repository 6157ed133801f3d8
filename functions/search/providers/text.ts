/** Text, host and date helpers shared by the upstream providers. */
import { replaceTags } from "../../lib/markup.ts";

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  euro: "€",
  pound: "£",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Plain text from an upstream snippet/title: tags removed (Brave's <strong>), entities decoded, spaces collapsed. */
export function plainText(value: unknown): string {
  if (typeof value !== "string") return "";
  return decodeEntities(replaceTags(value, "")).replace(/\s+/g, " ").trim();
}

/** Cuts `text` to at most `max` characters at a word boundary, marking the cut with "…". */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Lower-case host of an http(s) URL without a trailing dot; undefined when not an http(s) URL. */
export function hostOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return u.hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** Spec 2.8 site_name: the result's host without a leading "www.". */
export const siteNameOf = (host: string): string => host.replace(/^www\./, "");

const DAY_MS = 86_400_000;
const RELATIVE_UNITS: Record<string, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
  year: 365 * DAY_MS,
};

/** UTC calendar day of an instant, YYYY-MM-DD. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * YYYY-MM-DD of an upstream date: an ISO date or date-time keeps its own calendar day (no timezone shift),
 * other parseable forms ("May 18, 2023", RFC 2822) go through Date, and relative ages ("3 days ago",
 * Brave's `age`) count back from `now`. Undefined when not parseable.
 */
export function isoDay(value: unknown, now: Date = new Date()): string | undefined {
  if (typeof value !== "string" || !value.trim()) return undefined;
  const text = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text);
  if (iso) {
    const [, y, m, d] = iso;
    const check = new Date(`${y}-${m}-${d}T00:00:00Z`);
    return Number.isNaN(check.getTime()) || utcDay(check) !== `${y}-${m}-${d}` ? undefined : `${y}-${m}-${d}`;
  }
  const relative = /^(\d+|an?)\s+(minute|hour|day|week|month|year)s?\s+ago$/i.exec(text);
  if (relative) {
    const [, n = "1", unit = "day"] = relative;
    const count = /^\d+$/.test(n) ? Number(n) : 1;
    return utcDay(new Date(now.getTime() - count * (RELATIVE_UNITS[unit.toLowerCase()] ?? DAY_MS)));
  }
  if (/^(today|just now)$/i.test(text)) return utcDay(now);
  if (/^yesterday$/i.test(text)) return utcDay(new Date(now.getTime() - DAY_MS));
  const parsed = Date.parse(text);
  if (!Number.isFinite(parsed)) return undefined;
  const at = new Date(parsed);
  // Date.parse reads "May 18, 2023" as local midnight: take the local calendar day it names.
  const local = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}`;
  return /[zZ]|[+-]\d{2}:?\d{2}$|GMT|UTC/.test(text) ? utcDay(at) : local;
}

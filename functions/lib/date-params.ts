import { z } from "@hono/zod-openapi";

/**
 * The date and time query parameters of every listing (runs, fetch usage, search usage, search
 * `after_date`/`before_date`), defined once. `Date.parse` alone is not a check: V8 rolls
 * `2026-02-30` over to 2 March and `2026-02-29` to 1 March, so an impossible date silently became
 * another day's filter. Each part is checked against the calendar instead.
 */

/** YYYY-MM-DD naming a day that exists (2024-02-29 yes; 2023-02-29, 2024-02-30 and 2024-13-01 no). */
export function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear keeps them as written.
  date.setUTCFullYear(y);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})(?:[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/i;

/**
 * The instants a query may compare a timestamptz column with: years 0001 to 9999 in UTC. A Date
 * reaches the database as its toISOString(), and Postgres (PGlite too) fails the whole query on
 * year 0000 (`0000-01-01`, or `0001-01-01T00:00+01:00`), on a negative year and on the six-digit
 * `+010000-…` that `9999-12-31T23:59-23:59` becomes: each was a 500 from the session, fetch and
 * run listings.
 */
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An ISO 8601 date (`2026-11-21`, midnight UTC) or date-time (`2026-11-21T10:00:00Z`, with `T` or a
 * space, optional seconds and fraction, `Z` or an offset; without one, UTC) whose date exists,
 * whose clock time is real and whose instant falls in years 0001 to 9999 UTC; the Date it names,
 * or null.
 */
export function parseTimestamp(v: string): Date | null {
  const m = TIMESTAMP.exec(v);
  if (!m?.[1] || !isCalendarDate(m[1])) return null;
  let t = Date.parse(`${m[1]}T00:00:00Z`);
  if (m[2] !== undefined) {
    const zone = m[6] === undefined ? "Z" : m[6].toUpperCase() === "Z" ? "Z" : m[6].replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
    t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4] ?? "00"}${m[5] ?? ""}${zone}`);
  }
  return Number.isNaN(t) || t < EARLIEST || t > LATEST ? null : new Date(t);
}

/** A query parameter holding a calendar date (YYYY-MM-DD), kept as the string. */
export const calendarDateParam = (name: string) =>
  z
    .string()
    .refine(isCalendarDate, `${name} must be a real calendar date written YYYY-MM-DD`)
    .optional()
    .openapi({ param: { name, in: "query" }, type: "string", format: "date", example: "2026-01-31" });

/** A query parameter holding a timestamp (parseTimestamp), parsed to a Date. */
export const timestampParam = (name: string, description: string) =>
  z
    .string()
    .transform((v, ctx) => {
      const at = parseTimestamp(v);
      if (at) return at;
      ctx.addIssue({
        code: "custom",
        message: `${name} must be a real ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T10:00:00Z`,
      });
      return z.NEVER;
    })
    .optional()
    .openapi({
      param: { name, in: "query", description },
      type: "string",
      format: "date-time",
      description: `${description} ISO 8601 date or date-time (without an offset: UTC).`,
      example: "2026-11-21T10:00:00Z",
    });

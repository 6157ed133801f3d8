import { describe, expect, it } from "vitest";
import { isCalendarDate, parseTimestamp } from "../../functions/lib/date-params.ts";

/** The one date check of every listing's date filters (functions/lib/date-params.ts). */

describe("isCalendarDate", () => {
  it.each(["2024-02-29", "2026-02-28", "2026-12-31", "2026-01-01", "0001-01-01"])("accepts %s", (v) => {
    expect(isCalendarDate(v)).toBe(true);
  });
  it.each(["2026-02-29", "2026-02-30", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-05", "2026-01-00", "20260101"])(
    "refuses %s",
    (v) => {
      expect(isCalendarDate(v)).toBe(false);
    },
  );
});

describe("parseTimestamp", () => {
  it.each([
    ["2026-11-21", "2026-11-21T00:00:00.000Z"],
    ["2024-02-29T10:00:00Z", "2024-02-29T10:00:00.000Z"],
    ["2026-11-21T10:00Z", "2026-11-21T10:00:00.000Z"],
    ["2026-11-21 10:00:30.5+02:00", "2026-11-21T08:00:30.500Z"],
    ["2026-11-21T10:00:00-0130", "2026-11-21T11:30:00.000Z"],
    ["2026-11-21T10:00:00", "2026-11-21T10:00:00.000Z"],
    ["0001-01-01", "0001-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
  ])("reads %s", (v, iso) => {
    expect(parseTimestamp(v)?.toISOString()).toBe(iso);
  });
  it.each([
    "2026-02-30",
    "2026-02-29T10:00:00Z",
    "2026-13-01",
    "2026-04-31T00:00:00Z",
    "2026-11-21T24:00:00Z",
    "2026-11-21T10:60:00Z",
    "2026-11-21T10:00:61Z",
    "2026-11-21T10:00:00+24:00",
    "yesterday",
    "2026-11-21T10",
    // Instants Postgres cannot compare with a timestamptz: year 0000 (also reached through an
    // offset), and past 9999 in UTC.
    "0000-01-01",
    "0000-12-31T23:59:59Z",
    "0001-01-01T00:00+01:00",
    "9999-12-31T23:59-23:59",
  ])("refuses %s", (v) => {
    expect(parseTimestamp(v)).toBeNull();
  });
});

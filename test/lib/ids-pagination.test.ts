import { describe, expect, it } from "vitest";
import { defaultIds, newId, newSequentialId, randomBase62 } from "../../functions/lib/ids.ts";
import { DEFAULT_PAGE_LIMIT, PaginationQuery, pageOffset, toPage } from "../../functions/lib/pagination.ts";

const B32 = "[0-9a-hjkmnp-tv-z]";

describe("newId", () => {
  it.each(["acct", "key", "req", "run"])("is %s_ followed by 26 Crockford base32 characters", (prefix) => {
    expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_${B32}{26}$`));
  });

  it("the default generators use their prefixes", () => {
    expect(defaultIds.account()).toMatch(new RegExp(`^acct_${B32}{26}$`));
    expect(defaultIds.apiKey()).toMatch(new RegExp(`^key_${B32}{26}$`));
    expect(defaultIds.request()).toMatch(new RegExp(`^req_${B32}{26}$`));
  });

  it("encodes the time in the first 10 characters", () => {
    const t = Date.parse("2026-11-21T10:00:00.000Z");
    const a = newId("x", t);
    const b = newId("x", t);
    expect(a.slice(0, 12)).toBe(b.slice(0, 12));
    expect(a).not.toBe(b);
    expect(newId("x", 0).slice(2, 12)).toBe("0000000000");
    expect(newId("x", 31).slice(2, 12)).toBe("000000000z");
    expect(newId("x", 32).slice(2, 12)).toBe("0000000010");
  });

  it("newSequentialId: ids made within one millisecond sort in the order they were made; a new millisecond starts afresh", () => {
    const t = Date.parse("2026-11-27T04:00:00.000Z");
    const ids = Array.from({ length: 200 }, () => newSequentialId("msg", t));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(200);
    for (const id of ids) expect(id).toMatch(new RegExp(`^msg_${B32}{26}$`));
    const next = newSequentialId("msg", t + 1);
    expect(next > (ids.at(-1) as string)).toBe(true);
    expect(next.slice(0, 14)).not.toBe((ids.at(-1) as string).slice(0, 14));
    // Plain newId makes no such promise within a millisecond (random parts): 200 in order would be chance.
    const plain = Array.from({ length: 200 }, () => newId("msg", t));
    expect([...plain].sort()).not.toEqual(plain);
  });

  it("sorts by time, whatever the random part", () => {
    const times = [0, 1, 31, 32, 1_000, 999_999, Date.parse("2001-01-01"), Date.parse("2026-11-21"), Date.parse("2099-12-31")];
    for (let i = 1; i < times.length; i++) {
      for (let n = 0; n < 20; n++) {
        const earlier = newId("acct", times[i - 1]);
        const later = newId("acct", times[i]);
        expect(earlier < later).toBe(true);
      }
    }
    const shuffled = times.map((t) => ({ t, id: newId("req", t) })).reverse();
    expect(shuffled.sort((a, b) => (a.id < b.id ? -1 : 1)).map((x) => x.t)).toEqual(times);
  });

  it("is unique across 10,000 ids made in the same millisecond", () => {
    const t = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newId("key", t)));
    expect(ids.size).toBe(10_000);
  });
});

describe("randomBase62", () => {
  it.each([0, 1, 8, 40, 100])("has exactly %i characters", (length) => {
    const s = randomBase62(length);
    expect(s).toHaveLength(length);
    expect(s).toMatch(/^[0-9A-Za-z]*$/);
  });

  it("uses the whole alphabet and repeats no value", () => {
    const samples = Array.from({ length: 500 }, () => randomBase62(40));
    expect(new Set(samples).size).toBe(500);
    expect(new Set(samples.join("")).size).toBe(62);
  });
});

describe("pagination", () => {
  it.each([
    // total, limit, page → total_pages, has_more
    [0, 100, 1, 0, false],
    [0, 1, 3, 0, false],
    [1, 100, 1, 1, false],
    [100, 100, 1, 1, false],
    [101, 100, 1, 2, true],
    [101, 100, 2, 2, false],
    [10, 5, 1, 2, true],
    [10, 5, 2, 2, false],
    [10, 5, 3, 2, false],
    [7, 3, 2, 3, true],
    [7, 3, 3, 3, false],
    [2500, 1000, 2, 3, true],
  ])("total %i, limit %i, page %i → %i pages, has_more %s", (total, limit, page, totalPages, hasMore) => {
    const items = ["x"];
    expect(toPage(items, total, { limit, page })).toEqual({
      items,
      total,
      limit,
      page,
      total_pages: totalPages,
      has_more: hasMore,
    });
  });

  it.each([
    [1, 100, 0],
    [2, 100, 100],
    [3, 7, 14],
  ])("page %i of %i starts at row %i", (page, limit, offset) => {
    expect(pageOffset({ page, limit })).toBe(offset);
  });

  it("parses the query with defaults and bounds", () => {
    expect(PaginationQuery.parse({})).toEqual({ limit: DEFAULT_PAGE_LIMIT, page: 1 });
    expect(PaginationQuery.parse({ limit: "1000", page: "7" })).toEqual({ limit: 1000, page: 7 });
    for (const bad of [{ limit: "0" }, { limit: "1001" }, { page: "0" }, { limit: "1.5" }, { page: "-1" }, { limit: "ten" }]) {
      expect(PaginationQuery.safeParse(bad).success).toBe(false);
    }
  });
});

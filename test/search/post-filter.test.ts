import { describe, expect, it } from "vitest";
import { abstractFromInvertedIndex, yearFilter } from "../../functions/search/providers/openalex.ts";
import { hostMatches, postFilter } from "../../functions/search/providers/post-filter.ts";
import { isoDay, plainText, truncate } from "../../functions/search/providers/text.ts";
import type { SearchHit } from "../../functions/search/types.ts";
import { searchQuery as query } from "../helpers/search-upstreams.ts";

const NOW = new Date("2026-03-15T12:00:00Z");
const hit = (url: string, extra: Partial<SearchHit> = {}): SearchHit => ({
  url,
  title: "t",
  snippet: "",
  siteName: "",
  rank: 1,
  ...extra,
});
const urls = (hits: SearchHit[]) => hits.map((h) => h.url);

describe("postFilter", () => {
  it("matches hosts exactly or as subdomains, never lookalikes; exclusions win", () => {
    expect(hostMatches("docs.example.com", "example.com")).toBe(true);
    expect(hostMatches("example.com", "example.com")).toBe(true);
    expect(hostMatches("notexample.com", "example.com")).toBe(false);
    const hits = [
      hit("https://example.com/a"),
      hit("https://docs.example.com./b"),
      hit("https://notexample.com/c"),
      hit("https://private.example.com/d"),
      hit("ftp://example.com/e"),
      hit("not a url"),
    ];
    const q = query({ includeDomains: ["Example.com"], excludeDomains: ["private.example.com"] });
    expect(urls(postFilter(hits, q, NOW))).toEqual(["https://example.com/a", "https://docs.example.com./b"]);
  });

  it("applies inclusive date bounds; undated web pages stay, undated news goes", () => {
    const hits = [
      hit("https://a.com/1", { date: "2026-03-01" }),
      hit("https://a.com/2", { date: "2026-03-10" }),
      hit("https://a.com/3", { date: "2026-03-11" }),
      hit("https://a.com/4"),
    ];
    const bounds = { afterDate: "2026-03-01", beforeDate: "2026-03-10" };
    expect(urls(postFilter(hits, query(bounds), NOW))).toEqual(["https://a.com/1", "https://a.com/2", "https://a.com/4"]);
    expect(urls(postFilter(hits, query({ ...bounds, domainType: "news" }), NOW))).toEqual(["https://a.com/1", "https://a.com/2"]);
    expect(urls(postFilter(hits, query({ domainType: "news" }), NOW))).toHaveLength(4);
  });

  it("recency keeps hits dated on or after the UTC day it reaches back to", () => {
    const hits = [hit("https://a.com/1", { date: "2026-03-14" }), hit("https://a.com/2", { date: "2026-03-13" })];
    // 24 h before 2026-03-15T12:00Z is 2026-03-14T12:00Z: the whole of the 14th is kept (day precision)
    expect(urls(postFilter(hits, query({ domainType: "news", recencyMinutes: 1440 }), NOW))).toEqual(["https://a.com/1"]);
  });

  it("scopes research papers by year; a paper without a year goes when bounded", () => {
    const hits = [hit("https://a.org/1", { year: 2015 }), hit("https://a.org/2", { year: 2018 }), hit("https://a.org/3")];
    const q = query({ domainType: "research_paper", pubYearMin: 2016, pubYearMax: 2020 });
    expect(urls(postFilter(hits, q, NOW))).toEqual(["https://a.org/2"]);
    expect(urls(postFilter(hits, query({ domainType: "research_paper" }), NOW))).toHaveLength(3);
  });
});

describe("mapping helpers", () => {
  it("reads upstream dates as calendar days", () => {
    expect(isoDay("2026-03-14T21:30:00-05:00")).toBe("2026-03-14");
    expect(isoDay("2024-05-18T09:11:05")).toBe("2024-05-18");
    expect(isoDay("2023-02-30")).toBeUndefined();
    expect(isoDay("May 18, 2023")).toBe("2023-05-18");
    expect(isoDay("Thu, 12 Mar 2026 23:00:00 GMT")).toBe("2026-03-12");
    expect(isoDay("3 hours ago", NOW)).toBe("2026-03-15");
    expect(isoDay("2 days ago", NOW)).toBe("2026-03-13");
    expect(isoDay("a week ago", NOW)).toBe("2026-03-08");
    expect(isoDay("sometime")).toBeUndefined();
    expect(isoDay(null)).toBeUndefined();
  });

  it("strips tags and entities and cuts at a word", () => {
    expect(plainText("<strong>Osprey</strong> &amp; &#x27;hawk&#39; &hellip;\n &nbsp;x &bogus;")).toBe(
      "Osprey & 'hawk' … x &bogus;",
    );
    expect(truncate("alpha beta gamma delta", 15)).toBe("alpha beta…");
    expect(truncate("short", 15)).toBe("short");
  });

  it("rebuilds abstracts and year filters for OpenAlex", () => {
    expect(abstractFromInvertedIndex({ world: [1], hello: [0, 2] })).toBe("hello world hello");
    expect(abstractFromInvertedIndex(null)).toBe("");
    expect(yearFilter(2019, 2021)).toBe("publication_year:2019-2021");
    expect(yearFilter(0, 2021)).toBe("publication_year:<2022");
    expect(yearFilter(undefined, undefined)).toBeUndefined();
  });
});

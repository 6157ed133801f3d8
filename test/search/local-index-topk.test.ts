import { describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { bm25Page, DEFAULT_BM25, RANK_BOOST } from "../../functions/search/local/ranking.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { indexedDatabase } from "../helpers/search-index.ts";
import { searchQuery } from "../helpers/search-upstreams.ts";

// The page is chosen among the best documents by BM25 alone and then among those whose boosted
// score could still reach it (ranking.ts): a document the language or location lifts from outside
// the raw top must still take its place, on every page, filtered or not.
const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const viewer = { accountId: "acct_topk" };
const query = (o: Partial<SearchQuery> = {}): SearchQuery => searchQuery({ text: "quokka", ...o });

// 24 pages on one host whose BM25 scores fall slowly with their length, and one on a .de host a
// little longer than all of them: last by BM25, within RANK_BOOST.location of the best.
const PLAIN: IndexDocument[] = Array.from({ length: 24 }, (_, i) => ({
  url: `https://plain.example/${i}`,
  title: "Notes",
  text: `quokka ${"filler ".repeat(100 + i)}`,
  language: "en",
}));
const LIFTED: IndexDocument = {
  url: "https://lifted.de/page",
  title: "Notes",
  text: `quokka ${"filler ".repeat(130)}`,
  language: "en",
};

describe.each(driverCases(["pglite", "pg"]))("local index page selection on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock, [...PLAIN, LIFTED]);

  const page = async (o: Partial<SearchQuery>, limit?: number) =>
    bm25Page(ix.database.db, query(o), viewer, clock, DEFAULT_BM25, limit);

  /** Every match ranked by BM25 times the location factor, computed here from the scores. */
  const reference = async (o: Partial<SearchQuery>) => {
    const all = await page(o, 100);
    const factor = (url: string) => (o.location === "DE" && new URL(url).hostname.endsWith(".de") ? RANK_BOOST.location : 1);
    return all
      .map((r) => ({ url: r.url, ranked: Number(r.score) * factor(r.url) }))
      .sort((a, b) => b.ranked - a.ranked)
      .map((r) => r.url);
  };

  it("a page the location lifts from outside the BM25 top ten still ranks first", async () => {
    const raw = await page({});
    expect(raw.map((r) => r.url)).not.toContain(LIFTED.url);
    const byScore = (await page({}, 100)).map((r) => Number(r.score));
    expect(byScore).toEqual([...byScore].sort((a, b) => b - a));
    const lifted = byScore[byScore.length - 1] as number;
    // The case is the one meant: last by BM25, first once boosted.
    expect(lifted * RANK_BOOST.location).toBeGreaterThan(byScore[0] as number);
    const de = await page({ location: "DE" });
    expect(de[0]?.url).toBe(LIFTED.url);
    expect(de).toHaveLength(10);
  });

  it("every page equals the same slice of the full ranking", async () => {
    for (const o of [{}, { location: "DE" }] as Partial<SearchQuery>[]) {
      const full = await reference(o);
      expect(full).toHaveLength(25);
      for (const p of [0, 1, 2]) {
        const got = (await page({ ...o, page: p })).map((r) => r.url);
        expect(got).toEqual(full.slice(p * 10, p * 10 + 10));
      }
    }
  });

  it("under a filter that keeps fewer than a page, the page holds exactly what passes, in order", async () => {
    const got = (await page({ location: "DE", includeDomains: ["lifted.de"] })).map((r) => r.url);
    expect(got).toEqual([LIFTED.url]);
    const excluded = (await page({ location: "DE", excludeDomains: ["plain.example"] })).map((r) => r.url);
    expect(excluded).toEqual([LIFTED.url]);
    const kept = (await page({ location: "DE", excludeDomains: ["lifted.de"] })).map((r) => r.url);
    expect(kept).toEqual((await reference({})).filter((u) => u !== LIFTED.url).slice(0, 10));
  });
});
